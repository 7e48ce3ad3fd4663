//! The syntax tree of a GAQL query, as written: names are not resolved yet
//! and every node keeps its character offset for error positions.

/// A name as written and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned {
    /// The text.
    pub text: String,
    /// Characters before it in the query.
    pub offset: usize,
}

/// A parsed query: `SELECT … FROM … [WHERE …] [ORDER BY …] [LIMIT n] [PARAMETERS …]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The selected fields, in order.
    pub select: Vec<Spanned>,
    /// The FROM resource.
    pub from: Spanned,
    /// The conditions, all joined by AND (GAQL has no OR).
    pub conditions: Vec<Condition>,
    /// ORDER BY, in priority order.
    pub order_by: Vec<Ordering>,
    /// LIMIT, when given (always ≥ 1).
    pub limit: Option<u64>,
    /// PARAMETERS, when given.
    pub parameters: Vec<Parameter>,
}

/// `field operator value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The filtered field.
    pub field: Spanned,
    /// The operator.
    pub operator: Operator,
    /// Where the operator starts.
    pub operator_offset: usize,
    /// The value(s).
    pub operand: Operand,
}

/// GAQL's operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `=`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `IN (…)`.
    In,
    /// `NOT IN (…)`.
    NotIn,
    /// `LIKE '…'`.
    Like,
    /// `NOT LIKE '…'`.
    NotLike,
    /// `REGEXP_MATCH '…'` (RE2, whole value).
    RegexpMatch,
    /// `NOT REGEXP_MATCH '…'`.
    NotRegexpMatch,
    /// `BETWEEN a AND b`.
    Between,
    /// `IS NULL`.
    IsNull,
    /// `IS NOT NULL`.
    IsNotNull,
    /// `CONTAINS ANY (…)`.
    ContainsAny,
    /// `CONTAINS ALL (…)`.
    ContainsAll,
    /// `CONTAINS NONE (…)`.
    ContainsNone,
    /// `DURING <date range literal>`.
    During,
}

impl Operator {
    /// The operator as GAQL writes it.
    pub fn text(self) -> &'static str {
        match self {
            Operator::Eq => "=",
            Operator::Ne => "!=",
            Operator::Lt => "<",
            Operator::Le => "<=",
            Operator::Gt => ">",
            Operator::Ge => ">=",
            Operator::In => "IN",
            Operator::NotIn => "NOT IN",
            Operator::Like => "LIKE",
            Operator::NotLike => "NOT LIKE",
            Operator::RegexpMatch => "REGEXP_MATCH",
            Operator::NotRegexpMatch => "NOT REGEXP_MATCH",
            Operator::Between => "BETWEEN",
            Operator::IsNull => "IS NULL",
            Operator::IsNotNull => "IS NOT NULL",
            Operator::ContainsAny => "CONTAINS ANY",
            Operator::ContainsAll => "CONTAINS ALL",
            Operator::ContainsNone => "CONTAINS NONE",
            Operator::During => "DURING",
        }
    }

    /// Whether the operator takes a parenthesised list.
    pub fn takes_list(self) -> bool {
        matches!(
            self,
            Operator::In
                | Operator::NotIn
                | Operator::ContainsAny
                | Operator::ContainsAll
                | Operator::ContainsNone
        )
    }
}

/// A literal as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    /// What kind of literal.
    pub kind: LiteralKind,
    /// Its text as written.
    pub text: String,
    /// Where it starts.
    pub offset: usize,
}

/// The kinds of GAQL literals.
#[derive(Debug, Clone, PartialEq)]
pub enum LiteralKind {
    /// A number (validated: `-?[0-9]+(.[0-9]+)?`).
    Number,
    /// A quoted string, unescaped.
    Str(String),
    /// A bare word: an enum constant, TRUE/FALSE, or a date range (`LAST_7_DAYS`).
    Word,
}

impl LiteralKind {
    /// Whether two literals are of the same kind (for lists and BETWEEN).
    pub fn same_kind(&self, other: &LiteralKind) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// The right-hand side of a condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// IS NULL / IS NOT NULL take none.
    None,
    /// One value.
    Single(Literal),
    /// A parenthesised list (non-empty, one kind).
    List(Vec<Literal>),
    /// BETWEEN's two values.
    Range(Literal, Literal),
}

/// `field [ASC|DESC]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ordering {
    /// The field.
    pub field: Spanned,
    /// DESC (ASC is the default).
    pub descending: bool,
}

/// `name = value` in PARAMETERS.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// The name.
    pub name: Spanned,
    /// The value as written.
    pub value: Literal,
}
