//! The tree-walking evaluator: statements, expressions, scopes, calls and
//! exceptions. It holds no handle to files, sockets, processes or clocks;
//! the only way out is the `print` buffer.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::ast::*;
use super::builtins;
use super::error::{is_subclass, Fault, PyException, Raised};
use super::format::format_value;
use super::methods;
use super::modules;
use super::ops;
use super::value::{Closure, Dict, Key, Module, Value};

/// CPython's default recursion limit; `child::STACK_BYTES` is sized so the
/// evaluator's native recursion fits it (a deeper native overflow is
/// reported as a memory error by the runner).
pub const MAX_CALL_DEPTH: usize = 1000;

/// One function call's (or comprehension's) local variables.
pub struct Frame {
    vars: RefCell<HashMap<String, Value>>,
    parent: Option<Rc<Frame>>,
    globals: RefCell<HashSet<String>>,
}

impl Frame {
    fn new(parent: Option<Rc<Frame>>) -> Rc<Frame> {
        Rc::new(Frame {
            vars: RefCell::new(HashMap::new()),
            parent,
            globals: RefCell::new(HashSet::new()),
        })
    }
}

/// `None` is module level; otherwise the innermost function frame.
type Scope = Option<Rc<Frame>>;

enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

/// Receives each piece of printed text as it is printed.
pub type Echo = Box<dyn FnMut(&str)>;

/// Printed text, capped: past the cap the run stops with `OutputFull`.
pub struct Output {
    pub text: String,
    pub limit: usize,
    pub cut: bool,
    /// Also hands each kept piece to the child's stdout as it is printed.
    pub echo: Option<Echo>,
}

impl Output {
    pub fn write(&mut self, s: &str) -> Result<(), Raised> {
        let mut room = self.limit - self.text.len();
        let fits = s.len() <= room;
        if !fits {
            while !s.is_char_boundary(room) {
                room -= 1;
            }
        }
        let kept = if fits { s } else { &s[..room] };
        self.text.push_str(kept);
        if let Some(echo) = self.echo.as_mut() {
            if !kept.is_empty() {
                echo(kept);
            }
        }
        if fits {
            return Ok(());
        }
        self.cut = true;
        Err(Raised::fault(Fault::OutputFull))
    }
}

pub struct Interp {
    globals: HashMap<String, Value>,
    pub out: Output,
    depth: usize,
    /// Exceptions being handled, innermost last, for a bare `raise`.
    handling: Vec<PyException>,
}

impl Interp {
    pub fn new(output_limit: usize) -> Interp {
        // Snippets written as scripts guard with `if __name__ == "__main__":`.
        let globals = HashMap::from([("__name__".to_string(), Value::str("__main__"))]);
        Interp {
            globals,
            out: Output {
                text: String::new(),
                limit: output_limit,
                cut: false,
                echo: None,
            },
            depth: 0,
            handling: Vec::new(),
        }
    }

    pub fn set_global(&mut self, name: &str, value: Value) {
        self.globals.insert(name.to_string(), value);
    }

    pub fn run(&mut self, program: &[Stmt]) -> Result<(), Raised> {
        match self.exec_block(program, &None)? {
            Flow::Normal => Ok(()),
            Flow::Return(_) => Err(Raised::fault(Fault::Syntax(
                "'return' outside function".into(),
            ))),
            Flow::Break | Flow::Continue => Err(Raised::fault(Fault::Syntax(
                "'break' or 'continue' outside loop".into(),
            ))),
        }
    }

    fn exec_block(&mut self, block: &[Stmt], scope: &Scope) -> Result<Flow, Raised> {
        for stmt in block {
            match self.exec(stmt, scope).map_err(|e| e.at_line(stmt.line))? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, stmt: &Stmt, scope: &Scope) -> Result<Flow, Raised> {
        match &stmt.kind {
            StmtKind::Expr(e) => {
                self.eval(e, scope)?;
            }
            StmtKind::Assign(targets, value) => {
                let v = self.eval(value, scope)?;
                for t in targets {
                    self.assign(t, v.clone(), scope)?;
                }
            }
            StmtKind::AugAssign(target, op, value) => {
                let current = match target {
                    Target::Name(n) => self.lookup(n, scope)?,
                    Target::Index(obj, idx) => {
                        let o = self.eval(obj, scope)?;
                        let i = self.eval(idx, scope)?;
                        let cur = ops::subscript(&o, &i)?;
                        let rhs = self.eval(value, scope)?;
                        let new = ops::inplace(*op, cur, rhs)?;
                        ops::set_item(&o, i, new)?;
                        return Ok(Flow::Normal);
                    }
                    _ => {
                        return Err(Raised::fault(Fault::Syntax(
                            "illegal augmented assignment".into(),
                        )))
                    }
                };
                let rhs = self.eval(value, scope)?;
                let new = ops::inplace(*op, current, rhs)?;
                self.assign(target, new, scope)?;
            }
            StmtKind::If(branches, orelse) => {
                for (cond, body) in branches {
                    if self.eval(cond, scope)?.truthy() {
                        return self.exec_block(body, scope);
                    }
                }
                return self.exec_block(orelse, scope);
            }
            StmtKind::While(cond, body, orelse) => {
                while self.eval(cond, scope)?.truthy() {
                    match self.exec_block(body, scope)? {
                        Flow::Break => return Ok(Flow::Normal),
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Normal | Flow::Continue => {}
                    }
                }
                return self.exec_block(orelse, scope);
            }
            StmtKind::For(target, iter, body, orelse) => {
                let iterable = self.eval(iter, scope)?;
                // Ranges are walked lazily so `for i in range(10**9)` needs no memory.
                if let Value::Range(start, stop, step) = iterable {
                    let mut i = start;
                    while (step > 0 && i < stop) || (step < 0 && i > stop) {
                        self.assign(target, Value::Int(i), scope)?;
                        match self.exec_block(body, scope)? {
                            Flow::Break => return Ok(Flow::Normal),
                            Flow::Return(v) => return Ok(Flow::Return(v)),
                            Flow::Normal | Flow::Continue => {}
                        }
                        i = match i.checked_add(step) {
                            Some(n) => n,
                            None => break,
                        };
                    }
                } else {
                    for item in ops::iterate(&iterable)? {
                        self.assign(target, item, scope)?;
                        match self.exec_block(body, scope)? {
                            Flow::Break => return Ok(Flow::Normal),
                            Flow::Return(v) => return Ok(Flow::Return(v)),
                            Flow::Normal | Flow::Continue => {}
                        }
                    }
                }
                return self.exec_block(orelse, scope);
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Pass => {}
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e, scope)?,
                    None => Value::None,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Def(def) => {
                let f = self.make_function(def, scope)?;
                self.assign_name(&def.name, f, scope);
            }
            StmtKind::Import(module, bound) => {
                let m = module_value(module)?;
                self.assign_name(bound, m, scope);
            }
            StmtKind::FromImport(module, names) => {
                let m = module_value(module)?;
                if names.iter().any(|(name, _)| name == "*") {
                    for (name, v) in modules::public_names(&m) {
                        self.assign_name(name, v, scope);
                    }
                    return Ok(Flow::Normal);
                }
                for (name, bound) in names {
                    let v = methods::get_attr(&m, name).map_err(|_| {
                        Raised::exc(
                            "ImportError",
                            format!("cannot import name '{name}' from '{module}'"),
                        )
                    })?;
                    self.assign_name(bound, v, scope);
                }
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => return self.exec_try(body, handlers, orelse, finally, scope),
            StmtKind::Raise(e) => {
                let Some(e) = e else {
                    return match self.handling.last() {
                        Some(exc) => Err(Raised::Exception(exc.clone())),
                        None => Err(Raised::exc(
                            "RuntimeError",
                            "No active exception to reraise",
                        )),
                    };
                };
                return Err(match self.eval(e, scope)? {
                    Value::ExcClass(kind) => Raised::exc(kind, ""),
                    Value::Exception(exc) => Raised::exc(&exc.0, exc.1.clone()),
                    _ => Raised::type_error("exceptions must derive from BaseException"),
                });
            }
            StmtKind::Global(names) => {
                if let Some(frame) = scope {
                    frame.globals.borrow_mut().extend(names.iter().cloned());
                }
            }
            StmtKind::Del(targets) => {
                for t in targets {
                    self.delete(t, scope)?;
                }
            }
            StmtKind::Assert(cond, msg) => {
                if !self.eval(cond, scope)?.truthy() {
                    let text = match msg {
                        Some(m) => self.eval(m, scope)?.to_str(),
                        None => String::new(),
                    };
                    return Err(Raised::exc("AssertionError", text));
                }
            }
        }
        Ok(Flow::Normal)
    }

    fn exec_try(
        &mut self,
        body: &[Stmt],
        handlers: &[Handler],
        orelse: &[Stmt],
        finally: &[Stmt],
        scope: &Scope,
    ) -> Result<Flow, Raised> {
        let mut result = match self.exec_block(body, scope) {
            Err(Raised::Exception(exc)) => {
                let handler = handlers.iter().find(|h| {
                    h.classes.is_empty() || h.classes.iter().any(|c| is_subclass(&exc.kind, c))
                });
                match handler {
                    Some(h) => {
                        if let Some(name) = &h.bind {
                            let v =
                                Value::Exception(Rc::new((exc.kind.clone(), exc.message.clone())));
                            self.assign_name(name, v, scope);
                        }
                        self.handling.push(exc);
                        let r = self.exec_block(&h.body, scope);
                        self.handling.pop();
                        r
                    }
                    None => Err(Raised::Exception(exc)),
                }
            }
            Ok(Flow::Normal) => self.exec_block(orelse, scope),
            other => other,
        };
        if !finally.is_empty() {
            match self.exec_block(finally, scope) {
                Ok(Flow::Normal) => {}
                other => result = other,
            }
        }
        result
    }

    fn make_function(&mut self, def: &Rc<FuncDef>, scope: &Scope) -> Result<Value, Raised> {
        let mut defaults = Vec::with_capacity(def.params.len());
        for p in &def.params {
            defaults.push(match &p.default {
                Some(e) => Some(self.eval(e, scope)?),
                None => None,
            });
        }
        Ok(Value::Func(Rc::new(Closure {
            def: def.clone(),
            defaults,
            env: scope.clone(),
        })))
    }

    // ---- names ----

    fn lookup(&self, name: &str, scope: &Scope) -> Result<Value, Raised> {
        let mut frame = scope.as_ref();
        while let Some(f) = frame {
            if f.globals.borrow().contains(name) {
                break;
            }
            if let Some(v) = f.vars.borrow().get(name) {
                return Ok(v.clone());
            }
            frame = f.parent.as_ref();
        }
        if let Some(v) = self.globals.get(name) {
            return Ok(v.clone());
        }
        builtins::lookup(name)
    }

    fn assign_name(&mut self, name: &str, value: Value, scope: &Scope) {
        match scope {
            Some(frame) if !frame.globals.borrow().contains(name) => {
                frame.vars.borrow_mut().insert(name.to_string(), value);
            }
            _ => {
                self.globals.insert(name.to_string(), value);
            }
        }
    }

    fn assign(&mut self, target: &Target, value: Value, scope: &Scope) -> Result<(), Raised> {
        match target {
            Target::Name(n) => {
                self.assign_name(n, value, scope);
                Ok(())
            }
            Target::Index(obj, idx) => {
                let o = self.eval(obj, scope)?;
                let i = self.eval(idx, scope)?;
                ops::set_item(&o, i, value)
            }
            Target::Tuple(targets) => {
                let items = ops::iterate(&value)?;
                let star = targets.iter().position(|t| matches!(t, Target::Starred(_)));
                match star {
                    None => {
                        if items.len() != targets.len() {
                            return Err(Raised::value_error(if items.len() > targets.len() {
                                format!("too many values to unpack (expected {})", targets.len())
                            } else {
                                format!(
                                    "not enough values to unpack (expected {}, got {})",
                                    targets.len(),
                                    items.len()
                                )
                            }));
                        }
                        for (t, v) in targets.iter().zip(items) {
                            self.assign(t, v, scope)?;
                        }
                    }
                    Some(s) => {
                        let after = targets.len() - s - 1;
                        if items.len() < s + after {
                            return Err(Raised::value_error(format!(
                                "not enough values to unpack (expected at least {}, got {})",
                                s + after,
                                items.len()
                            )));
                        }
                        let mut items = items;
                        let tail = items.split_off(items.len() - after);
                        let middle = items.split_off(s);
                        for (t, v) in targets[..s].iter().zip(items) {
                            self.assign(t, v, scope)?;
                        }
                        if let Target::Starred(inner) = &targets[s] {
                            self.assign(inner, Value::list(middle), scope)?;
                        }
                        for (t, v) in targets[s + 1..].iter().zip(tail) {
                            self.assign(t, v, scope)?;
                        }
                    }
                }
                Ok(())
            }
            Target::Starred(_) => Err(Raised::fault(Fault::Syntax(
                "starred assignment target must be in a list or tuple".into(),
            ))),
        }
    }

    fn delete(&mut self, target: &Target, scope: &Scope) -> Result<(), Raised> {
        match target {
            Target::Name(n) => {
                let removed = match scope {
                    Some(f) => f.vars.borrow_mut().remove(n).is_some(),
                    None => self.globals.remove(n).is_some(),
                };
                if removed {
                    Ok(())
                } else {
                    Err(Raised::exc(
                        "NameError",
                        format!("name '{n}' is not defined"),
                    ))
                }
            }
            Target::Index(obj, idx) => {
                let o = self.eval(obj, scope)?;
                let i = self.eval(idx, scope)?;
                ops::del_item(&o, &i)
            }
            Target::Tuple(ts) => {
                for t in ts {
                    self.delete(t, scope)?;
                }
                Ok(())
            }
            _ => Err(Raised::fault(Fault::Syntax(
                "cannot delete this target".into(),
            ))),
        }
    }

    // ---- expressions ----

    pub fn eval(&mut self, e: &Expr, scope: &Scope) -> Result<Value, Raised> {
        Ok(match e {
            Expr::Const(v) => v.clone(),
            Expr::FString(parts) => Value::str(&self.fstring(parts, scope)?),
            Expr::Name(n) => self.lookup(n, scope)?,
            Expr::List(items) => Value::list(self.eval_items(items, scope)?),
            Expr::Tuple(items) => Value::tuple(self.eval_items(items, scope)?),
            Expr::Set(items) => {
                let mut set = Dict::new();
                for v in self.eval_items(items, scope)? {
                    // A set keeps the first of equal elements (`{True, 1.0}` holds True).
                    set.entry(Key::of(&v)?).or_insert((v, Value::None));
                }
                Value::Set(Rc::new(RefCell::new(set)))
            }
            Expr::Dict(pairs) => {
                let mut d = Dict::new();
                for (k, v) in pairs {
                    match k {
                        Some(k) => {
                            let k = self.eval(k, scope)?;
                            let v = self.eval(v, scope)?;
                            ops::dict_insert(&mut d, k, v)?;
                        }
                        None => match self.eval(v, scope)? {
                            Value::Dict(other) => {
                                for (k, v) in other.borrow().values() {
                                    ops::dict_insert(&mut d, k.clone(), v.clone())?;
                                }
                            }
                            other => {
                                return Err(Raised::type_error(format!(
                                    "'{}' object is not a mapping",
                                    other.type_name()
                                )))
                            }
                        },
                    }
                }
                Value::dict(d)
            }
            Expr::Starred(_) => {
                return Err(Raised::fault(Fault::Syntax(
                    "can't use starred expression here".into(),
                )))
            }
            Expr::Attr(obj, name) => {
                let o = self.eval(obj, scope)?;
                methods::get_attr(&o, name)?
            }
            Expr::Index(obj, idx) => {
                let o = self.eval(obj, scope)?;
                let i = self.eval(idx, scope)?;
                ops::subscript(&o, &i)?
            }
            Expr::Slice(a, b, c) => {
                let mut part = |x: &Option<Box<Expr>>| -> Result<Value, Raised> {
                    match x {
                        Some(x) => self.eval(x, scope),
                        None => Ok(Value::None),
                    }
                };
                let (a, b, c) = (part(a)?, part(b)?, part(c)?);
                ops::make_slice(a, b, c)
            }
            Expr::Call(func, args) => {
                let f = self.eval(func, scope)?;
                let mut pos = Vec::with_capacity(args.len());
                let mut kw = Vec::new();
                for a in args {
                    match a {
                        Arg::Pos(e) => pos.push(self.eval(e, scope)?),
                        Arg::Star(e) => {
                            let v = self.eval(e, scope)?;
                            pos.extend(ops::iterate(&v)?);
                        }
                        Arg::Kw(name, e) => kw.push((name.clone(), self.eval(e, scope)?)),
                        Arg::StarStar(e) => match self.eval(e, scope)? {
                            Value::Dict(d) => {
                                for (k, v) in d.borrow().values() {
                                    match k {
                                        Value::Str(s) => kw.push((s.to_string(), v.clone())),
                                        _ => {
                                            return Err(Raised::type_error(
                                                "keywords must be strings",
                                            ))
                                        }
                                    }
                                }
                            }
                            other => {
                                return Err(Raised::type_error(format!(
                                    "argument after ** must be a mapping, not {}",
                                    other.type_name()
                                )))
                            }
                        },
                    }
                }
                self.call(&f, pos, kw)?
            }
            Expr::Unary(op, inner) => {
                let v = self.eval(inner, scope)?;
                ops::unary(*op, &v)?
            }
            Expr::Binary(op, a, b) => {
                let a = self.eval(a, scope)?;
                let b = self.eval(b, scope)?;
                ops::binary(*op, &a, &b)?
            }
            Expr::And(a, b) => {
                let a = self.eval(a, scope)?;
                if a.truthy() {
                    self.eval(b, scope)?
                } else {
                    a
                }
            }
            Expr::Or(a, b) => {
                let a = self.eval(a, scope)?;
                if a.truthy() {
                    a
                } else {
                    self.eval(b, scope)?
                }
            }
            Expr::Compare(first, rest) => {
                let mut left = self.eval(first, scope)?;
                for (op, right) in rest {
                    let right = self.eval(right, scope)?;
                    if !ops::compare_op(*op, &left, &right)? {
                        return Ok(Value::Bool(false));
                    }
                    left = right;
                }
                Value::Bool(true)
            }
            Expr::IfElse(cond, a, b) => {
                if self.eval(cond, scope)?.truthy() {
                    self.eval(a, scope)?
                } else {
                    self.eval(b, scope)?
                }
            }
            Expr::Lambda(def) => self.make_function(def, scope)?,
            Expr::Comp {
                kind,
                elt,
                value,
                clauses,
            } => {
                let frame = Frame::new(scope.clone());
                let inner = Some(frame);
                let mut items = Vec::new();
                let mut dict = Dict::new();
                self.comprehend(clauses, 0, &inner, &mut |interp, scope| {
                    let k = interp.eval(elt, scope)?;
                    match value {
                        Some(v) => {
                            let v = interp.eval(v, scope)?;
                            ops::dict_insert(&mut dict, k, v)?;
                        }
                        None => items.push(k),
                    }
                    Ok(())
                })?;
                match kind {
                    CompKind::List => Value::list(items),
                    CompKind::Gen => Value::iter("generator", items),
                    CompKind::Dict => Value::dict(dict),
                    CompKind::Set => {
                        let mut set = Dict::new();
                        for v in items {
                            // A set keeps the first of equal elements (`{True, 1.0}` holds True).
                            set.entry(Key::of(&v)?).or_insert((v, Value::None));
                        }
                        Value::Set(Rc::new(RefCell::new(set)))
                    }
                }
            }
        })
    }

    fn comprehend(
        &mut self,
        clauses: &[CompClause],
        level: usize,
        scope: &Scope,
        emit: &mut dyn FnMut(&mut Interp, &Scope) -> Result<(), Raised>,
    ) -> Result<(), Raised> {
        let Some(clause) = clauses.get(level) else {
            return emit(self, scope);
        };
        // The first iterable is evaluated in the enclosing scope, as in Python;
        // with a fresh frame its names fall through to the enclosing ones anyway.
        let iterable = self.eval(&clause.iter, scope)?;
        let items = match iterable {
            Value::Range(a, b, c) => ops::range_items(a, b, c)?,
            other => ops::iterate(&other)?,
        };
        'items: for item in items {
            self.assign(&clause.target, item, scope)?;
            for cond in &clause.conds {
                if !self.eval(cond, scope)?.truthy() {
                    continue 'items;
                }
            }
            self.comprehend(clauses, level + 1, scope, emit)?;
        }
        Ok(())
    }

    fn eval_items(&mut self, items: &[Expr], scope: &Scope) -> Result<Vec<Value>, Raised> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Expr::Starred(inner) => {
                    let v = self.eval(inner, scope)?;
                    out.extend(ops::iterate(&v)?);
                }
                other => out.push(self.eval(other, scope)?),
            }
        }
        Ok(out)
    }

    fn fstring(&mut self, parts: &[FPart], scope: &Scope) -> Result<String, Raised> {
        let mut out = String::new();
        for part in parts {
            match part {
                FPart::Lit(s) => out.push_str(s),
                FPart::Field {
                    expr,
                    conversion,
                    spec,
                } => {
                    let v = self.eval(expr, scope)?;
                    let v = match conversion {
                        Some('r' | 'a') => Value::str(&v.repr()),
                        Some(_) => Value::str(&v.to_str()),
                        None => v,
                    };
                    let spec = self.fstring(spec, scope)?;
                    out.push_str(&format_value(&v, &spec)?);
                }
            }
        }
        Ok(out)
    }

    // ---- calls ----

    pub fn call(
        &mut self,
        f: &Value,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, Raised> {
        match f {
            Value::Func(closure) => self.call_closure(closure, args, kwargs),
            Value::Builtin(name) => builtins::call(self, name, args, kwargs),
            Value::Method(obj, name) => methods::call_method(self, obj, name, args, kwargs),
            Value::ExcClass(kind) => {
                let message = match args.as_slice() {
                    [] => String::new(),
                    [one] => one.to_str(),
                    many => Value::tuple(many.to_vec()).repr(),
                };
                Ok(Value::Exception(Rc::new((kind.to_string(), message))))
            }
            other => Err(Raised::type_error(format!(
                "'{}' object is not callable",
                other.type_name()
            ))),
        }
    }

    fn call_closure(
        &mut self,
        closure: &Closure,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, Raised> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Raised::exc(
                "RecursionError",
                format!("maximum recursion depth exceeded (the calculator allows {MAX_CALL_DEPTH} nested calls)"),
            ));
        }
        let def = &closure.def;
        let frame = Frame::new(closure.env.clone());
        {
            let mut vars = frame.vars.borrow_mut();
            let mut args = args.into_iter();
            let mut extra_kw = Dict::new();
            let mut star_rest = Vec::new();
            for (p, default) in def.params.iter().zip(&closure.defaults) {
                match p.kind {
                    ParamKind::Normal => {
                        if let Some(v) = args.next() {
                            vars.insert(p.name.clone(), v);
                        } else if let Some(v) = default {
                            vars.insert(p.name.clone(), v.clone());
                        }
                    }
                    ParamKind::Star => star_rest.extend(args.by_ref()),
                    ParamKind::StarStar => {}
                }
            }
            let rest: Vec<Value> = args.collect();
            let has_star = def.params.iter().any(|p| p.kind == ParamKind::Star);
            if !rest.is_empty() && !has_star {
                return Err(Raised::type_error(format!(
                    "{}() takes {} positional arguments but more were given",
                    def.name,
                    def.params.len()
                )));
            }
            for (name, v) in kwargs {
                match def
                    .params
                    .iter()
                    .find(|p| p.name == name && p.kind == ParamKind::Normal)
                {
                    Some(p) => {
                        vars.insert(p.name.clone(), v);
                    }
                    None if def.params.iter().any(|p| p.kind == ParamKind::StarStar) => {
                        extra_kw.insert(Key::Str(name.as_str().into()), (Value::str(&name), v));
                    }
                    None => {
                        return Err(Raised::type_error(format!(
                            "{}() got an unexpected keyword argument '{name}'",
                            def.name
                        )))
                    }
                }
            }
            for p in &def.params {
                match p.kind {
                    ParamKind::Star => {
                        vars.insert(p.name.clone(), Value::tuple(std::mem::take(&mut star_rest)));
                    }
                    ParamKind::StarStar => {
                        vars.insert(p.name.clone(), Value::dict(std::mem::take(&mut extra_kw)));
                    }
                    ParamKind::Normal if !vars.contains_key(&p.name) => {
                        return Err(Raised::type_error(format!(
                            "{}() missing required argument: '{}'",
                            def.name, p.name
                        )))
                    }
                    ParamKind::Normal => {}
                }
            }
        }
        self.depth += 1;
        let result = self.exec_block(&def.body, &Some(frame));
        self.depth -= 1;
        let result = result.map_err(|e| match e {
            // The innermost function names where the error happened.
            Raised::Exception(mut exc) if exc.function.is_none() && exc.line.is_some() => {
                exc.function = Some(def.name.clone());
                Raised::Exception(exc)
            }
            other => other,
        });
        match result? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Value::None),
        }
    }
}

/// The exception class of a refused import. Uncaught, it ends the run as
/// a refusal; a snippet may still catch it (`except ImportError:`).
pub const REFUSED_IMPORT: &str = "ModuleNotFoundError";

/// The two importable modules; any other import is refused by name.
fn module_value(name: &str) -> Result<Value, Raised> {
    match name {
        "math" => Ok(Value::Module(Module::Math)),
        "statistics" => Ok(Value::Module(Module::Statistics)),
        other => Err(Raised::exc(
            REFUSED_IMPORT,
            format!(
                "import of `{other}` is refused: the calculator has no file, network, process or clock access; only `math` and `statistics` can be imported"
            ),
        )),
    }
}
