//! The syntax tree of the calculator's Python subset.

use std::rc::Rc;

use super::value::Value;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    Is,
    IsNot,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnOp {
    Neg,
    Pos,
    Not,
    Invert,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CompKind {
    List,
    Set,
    Dict,
    /// A generator expression: evaluated eagerly into a list.
    Gen,
}

#[derive(Debug, Clone)]
pub enum FPart {
    Lit(String),
    Field {
        expr: Box<Expr>,
        conversion: Option<char>,
        spec: Vec<FPart>,
    },
}

#[derive(Debug, Clone)]
pub enum Arg {
    Pos(Expr),
    Star(Expr),
    Kw(String, Expr),
    StarStar(Expr),
}

#[derive(Debug, Clone)]
pub struct CompClause {
    pub target: Target,
    pub iter: Expr,
    pub conds: Vec<Expr>,
}

#[derive(Debug, Clone)]
pub enum Expr {
    /// A literal (`None`, `True`, a number, a string without fields) as
    /// the value it evaluates to.
    Const(Value),
    FString(Vec<FPart>),
    Name(String),
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Set(Vec<Expr>),
    /// Key/value pairs; a `None` key is a `**mapping` spread.
    Dict(Vec<(Option<Expr>, Expr)>),
    Starred(Box<Expr>),
    Attr(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
    Call(Box<Expr>, Vec<Arg>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    IfElse(Box<Expr>, Box<Expr>, Box<Expr>),
    Lambda(Rc<FuncDef>),
    Comp {
        kind: CompKind,
        elt: Box<Expr>,
        value: Option<Box<Expr>>,
        clauses: Vec<CompClause>,
    },
}

#[derive(Debug, Clone)]
pub enum Target {
    Name(String),
    Index(Expr, Expr),
    Tuple(Vec<Target>),
    Starred(Box<Target>),
}

#[derive(Debug)]
pub struct Param {
    pub name: String,
    pub default: Option<Expr>,
    /// `*args` (Star) or `**kwargs` (StarStar).
    pub kind: ParamKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    Normal,
    Star,
    StarStar,
}

#[derive(Debug)]
pub struct FuncDef {
    pub name: String,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Clone)]
pub struct Handler {
    /// Class names caught; empty for a bare `except:`.
    pub classes: Vec<String>,
    pub bind: Option<String>,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Clone)]
pub struct Stmt {
    pub line: u32,
    pub kind: StmtKind,
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    Expr(Expr),
    Assign(Vec<Target>, Expr),
    AugAssign(Target, BinOp, Expr),
    If(Vec<(Expr, Vec<Stmt>)>, Vec<Stmt>),
    While(Expr, Vec<Stmt>, Vec<Stmt>),
    For(Target, Expr, Vec<Stmt>, Vec<Stmt>),
    Break,
    Continue,
    Pass,
    Return(Option<Expr>),
    Def(Rc<FuncDef>),
    /// `import math as m`: the module and the name it is bound to.
    Import(String, String),
    /// `from statistics import mean as avg`: (name, bound name) pairs.
    FromImport(String, Vec<(String, String)>),
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        orelse: Vec<Stmt>,
        finally: Vec<Stmt>,
    },
    Raise(Option<Expr>),
    Global(Vec<String>),
    Del(Vec<Target>),
    Assert(Expr, Option<Expr>),
}
