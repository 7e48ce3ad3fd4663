//! The parser: tokens to a [`Query`], by recursive descent over Google's
//! published grammar:
//!
//! ```text
//! Query        -> SelectClause FromClause WhereClause? OrderByClause? LimitClause? ParametersClause?
//! SelectClause -> SELECT FieldName (, FieldName)*
//! FromClause   -> FROM ResourceName
//! WhereClause  -> WHERE Condition (AND Condition)*
//! OrderByClause-> ORDER BY Ordering (, Ordering)*
//! LimitClause  -> LIMIT PositiveInteger
//! Condition    -> FieldName Operator Value
//! Ordering     -> FieldName (ASC | DESC)?
//! ```
//!
//! Syntax only: names are resolved against the catalog later, in
//! [`validate`](super::validate). Each error names the token where the
//! grammar was broken, or the end of the query.

use super::ast::{
    Condition, Literal, LiteralKind, Operand, Operator, Ordering, Parameter, Query, Spanned,
};
use super::lexer::{tokenize, Token, TokenKind};
use crate::api::error::{GoogleAdsError, QueryError};

/// Words that end a value or a clause and so can never be a value.
const RESERVED: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "ORDER",
    "BY",
    "LIMIT",
    "PARAMETERS",
];

/// Parses a GAQL query.
///
/// # Errors
/// A `QueryError` (EXPECTED_SELECT, BAD_FIELD_NAME, EXPECTED_FROM,
/// BAD_OPERATOR, EXPECTED_AND, UNEXPECTED_END_OF_QUERY, UNEXPECTED_INPUT
/// ...) at the character where the query stops following the grammar.
pub fn parse(query: &str) -> Result<Query, GoogleAdsError> {
    let tokens = tokenize(query)?;
    let mut p = Parser {
        query,
        tokens,
        pos: 0,
        end: query.chars().count(),
    };
    p.query()
}

struct Parser<'q> {
    query: &'q str,
    tokens: Vec<Token>,
    pos: usize,
    end: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += usize::from(t.is_some());
        t
    }

    fn at_keyword(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| t.is_keyword(kw))
    }

    fn error(&self, code: QueryError, at: &Token, message: impl Into<String>) -> GoogleAdsError {
        GoogleAdsError::query(code, self.query, at.offset, at.text.clone(), message)
    }

    /// `code` at the token under the cursor, or at the end of the query.
    fn error_here(&self, code: QueryError, message: impl Into<String>) -> GoogleAdsError {
        match self.peek() {
            Some(t) => self.error(code, t, message),
            None => GoogleAdsError::query(code, self.query, self.end, "", message),
        }
    }

    fn end_of_query(&self, wanted: &str) -> GoogleAdsError {
        GoogleAdsError::query(
            QueryError::UnexpectedEndOfQuery,
            self.query,
            self.end,
            "",
            format!("The query ends where {wanted} is expected."),
        )
    }

    fn query(&mut self) -> Result<Query, GoogleAdsError> {
        if !self.at_keyword("SELECT") {
            return Err(self.error_here(QueryError::ExpectedSelect, "A query starts with SELECT."));
        }
        self.bump();
        let mut select = vec![self.field_name()?];
        while self.peek().is_some_and(|t| t.kind == TokenKind::Comma) {
            self.bump();
            select.push(self.field_name()?);
        }
        if !self.at_keyword("FROM") {
            return Err(self.error_here(
                QueryError::ExpectedFrom,
                "Expected FROM and a resource after the selected fields.",
            ));
        }
        self.bump();
        let from = self.resource_name()?;
        let mut conditions = Vec::new();
        if self.at_keyword("WHERE") {
            self.bump();
            conditions.push(self.condition()?);
            while self.at_keyword("AND") {
                self.bump();
                conditions.push(self.condition()?);
            }
        }
        let mut order_by = Vec::new();
        if self.at_keyword("ORDER") {
            self.bump();
            if !self.at_keyword("BY") {
                return Err(
                    self.error_here(QueryError::ExpectedBy, "ORDER must be followed by BY.")
                );
            }
            self.bump();
            loop {
                let field = self.field_name()?;
                let descending = if self.at_keyword("DESC") {
                    self.bump();
                    true
                } else {
                    if self.at_keyword("ASC") {
                        self.bump();
                    }
                    false
                };
                order_by.push(Ordering { field, descending });
                if !self.peek().is_some_and(|t| t.kind == TokenKind::Comma) {
                    break;
                }
                self.bump();
            }
        }
        let limit = if self.at_keyword("LIMIT") {
            self.bump();
            Some(self.limit()?)
        } else {
            None
        };
        let mut parameters = Vec::new();
        if self.at_keyword("PARAMETERS") {
            self.bump();
            loop {
                parameters.push(self.parameter()?);
                if !self.peek().is_some_and(|t| t.kind == TokenKind::Comma) {
                    break;
                }
                self.bump();
            }
        }
        if let Some(t) = self.peek() {
            let message = if t.is_keyword("OR") {
                "GAQL has no OR: conditions can only be joined by AND.".to_string()
            } else {
                format!("Unexpected '{}' here.", t.text)
            };
            return Err(self.error(QueryError::UnexpectedInput, t, message));
        }
        Ok(Query {
            select,
            from,
            conditions,
            order_by,
            limit,
            parameters,
        })
    }

    /// `[a-z][a-zA-Z0-9_]*(.[a-zA-Z0-9_]+)*`, not a keyword.
    fn field_name(&mut self) -> Result<Spanned, GoogleAdsError> {
        let Some(t) = self.peek().cloned() else {
            return Err(self.end_of_query("a field name"));
        };
        let well_formed = t.kind == TokenKind::Word
            && t.text.starts_with(|c: char| c.is_ascii_lowercase())
            && t.text.split('.').all(|part| !part.is_empty())
            && !RESERVED.iter().any(|kw| t.is_keyword(kw));
        if !well_formed {
            return Err(self.error(
                QueryError::BadFieldName,
                &t,
                format!("'{}' is not a field name.", t.text),
            ));
        }
        self.bump();
        Ok(Spanned {
            text: t.text,
            offset: t.offset,
        })
    }

    /// `[a-z][a-zA-Z_]*`.
    fn resource_name(&mut self) -> Result<Spanned, GoogleAdsError> {
        let Some(t) = self.bump() else {
            return Err(self.end_of_query("a resource after FROM"));
        };
        let well_formed = t.kind == TokenKind::Word
            && t.text.starts_with(|c: char| c.is_ascii_lowercase())
            && t.text.chars().all(|c| c.is_ascii_alphabetic() || c == '_');
        if !well_formed {
            return Err(self.error(
                QueryError::BadResourceTypeInFromClause,
                &t,
                format!("'{}' is not a resource.", t.text),
            ));
        }
        Ok(Spanned {
            text: t.text,
            offset: t.offset,
        })
    }

    fn condition(&mut self) -> Result<Condition, GoogleAdsError> {
        let field = self.field_name()?;
        let (operator, operator_offset) = self.operator()?;
        let operand = match operator {
            Operator::IsNull | Operator::IsNotNull => Operand::None,
            op if op.takes_list() => self.list(op)?,
            Operator::Between => self.between()?,
            Operator::During => match self.bump() {
                None => return Err(self.end_of_query("a date range after DURING")),
                Some(t) if t.kind == TokenKind::Word && !is_reserved(&t) => {
                    Operand::Single(Literal {
                        kind: LiteralKind::Word,
                        text: t.text,
                        offset: t.offset,
                    })
                }
                Some(t) => {
                    return Err(self.error(
                        QueryError::InvalidValueWithDuringOperator,
                        &t,
                        format!(
                            "DURING takes a date range such as LAST_7_DAYS, not '{}'.",
                            t.text
                        ),
                    ))
                }
            },
            _ => {
                if self.peek().is_some_and(|t| t.kind == TokenKind::LParen) {
                    return Err(self.error_here(
                        QueryError::ExpectedSingleValue,
                        format!("{} takes one value, not a list.", operator.text()),
                    ));
                }
                Operand::Single(self.literal(QueryError::BadValue)?)
            }
        };
        Ok(Condition {
            field,
            operator,
            operator_offset,
            operand,
        })
    }

    fn operator(&mut self) -> Result<(Operator, usize), GoogleAdsError> {
        let Some(t) = self.bump() else {
            return Err(self.end_of_query("an operator"));
        };
        let bad = |p: &Self, t: &Token, text: &str| {
            let message = format!("'{text}' is not an operator.");
            GoogleAdsError::query(QueryError::BadOperator, p.query, t.offset, text, message)
        };
        let op = match t.kind {
            TokenKind::Operator => match t.text.as_str() {
                "=" => Operator::Eq,
                "!=" => Operator::Ne,
                "<" => Operator::Lt,
                "<=" => Operator::Le,
                ">" => Operator::Gt,
                ">=" => Operator::Ge,
                other => return Err(bad(self, &t, other)),
            },
            TokenKind::Word => {
                let word = t.text.to_ascii_uppercase();
                // The second word of a two-word operator, if it is the one we need.
                let second = |p: &mut Self, options: &[(&str, Operator)]| {
                    let next = p.peek().cloned();
                    for (w, op) in options {
                        if next.as_ref().is_some_and(|n| n.is_keyword(w)) {
                            p.bump();
                            return Ok(*op);
                        }
                    }
                    let following = next.map(|n| n.text).unwrap_or_default();
                    Err(bad(p, &t, format!("{} {following}", t.text).trim_end()))
                };
                match word.as_str() {
                    "IN" => Operator::In,
                    "LIKE" => Operator::Like,
                    "REGEXP_MATCH" => Operator::RegexpMatch,
                    "BETWEEN" => Operator::Between,
                    "DURING" => Operator::During,
                    "NOT" => second(
                        self,
                        &[
                            ("IN", Operator::NotIn),
                            ("LIKE", Operator::NotLike),
                            ("REGEXP_MATCH", Operator::NotRegexpMatch),
                        ],
                    )?,
                    "CONTAINS" => second(
                        self,
                        &[
                            ("ANY", Operator::ContainsAny),
                            ("ALL", Operator::ContainsAll),
                            ("NONE", Operator::ContainsNone),
                        ],
                    )?,
                    "IS" => {
                        if self.at_keyword("NOT") {
                            self.bump();
                            if !self.at_keyword("NULL") {
                                return Err(bad(self, &t, "IS NOT"));
                            }
                            self.bump();
                            Operator::IsNotNull
                        } else {
                            second(self, &[("NULL", Operator::IsNull)])?
                        }
                    }
                    _ => return Err(bad(self, &t, &t.text)),
                }
            }
            _ => return Err(bad(self, &t, &t.text)),
        };
        Ok((op, t.offset))
    }

    /// One value; `code` when the token is not a value at all.
    fn literal(&mut self, code: QueryError) -> Result<Literal, GoogleAdsError> {
        let Some(t) = self.peek().cloned() else {
            return Err(self.end_of_query("a value"));
        };
        let kind = match &t.kind {
            TokenKind::Number => {
                if !is_number(&t.text) {
                    return Err(self.error(
                        QueryError::BadNumber,
                        &t,
                        format!("'{}' is not a number.", t.text),
                    ));
                }
                LiteralKind::Number
            }
            TokenKind::Str(s) => LiteralKind::Str(s.clone()),
            TokenKind::Word if !is_reserved(&t) => LiteralKind::Word,
            _ => {
                return Err(self.error(code, &t, format!("Expected a value, found '{}'.", t.text)))
            }
        };
        self.bump();
        Ok(Literal {
            kind,
            text: t.text,
            offset: t.offset,
        })
    }

    fn list(&mut self, op: Operator) -> Result<Operand, GoogleAdsError> {
        let Some(open) = self.peek().cloned() else {
            return Err(self.end_of_query("a list"));
        };
        if open.kind != TokenKind::LParen {
            return Err(self.error(
                QueryError::ExpectedList,
                &open,
                format!("{} takes a list in parentheses: (a, b).", op.text()),
            ));
        }
        self.bump();
        if self.peek().is_some_and(|t| t.kind == TokenKind::RParen) {
            return Err(self.error(
                QueryError::ProhibitedEmptyListInCondition,
                &open,
                "The list is empty.",
            ));
        }
        let mut items: Vec<Literal> = Vec::new();
        loop {
            let item = self.literal(QueryError::BadValue)?;
            if let Some(first) = items.first() {
                if !first.kind.same_kind(&item.kind) {
                    return Err(GoogleAdsError::query(
                        QueryError::ProhibitedValueCombinationInList,
                        self.query,
                        item.offset,
                        item.text,
                        "A list's values must all be of one kind.",
                    ));
                }
            }
            items.push(item);
            match self.bump() {
                Some(t) if t.kind == TokenKind::Comma => continue,
                Some(t) if t.kind == TokenKind::RParen => break,
                Some(t) => {
                    return Err(self.error(
                        QueryError::UnexpectedInput,
                        &t,
                        "Expected ',' or ')' in the list.",
                    ))
                }
                None => return Err(self.end_of_query("')'")),
            }
        }
        Ok(Operand::List(items))
    }

    fn between(&mut self) -> Result<Operand, GoogleAdsError> {
        let missing = "BETWEEN takes two values: BETWEEN a AND b.";
        let value = |p: &mut Self| {
            if p.peek().is_none() || p.at_keyword("AND") {
                return Err(p.error_here(QueryError::ExpectedValueWithBetweenOperator, missing));
            }
            p.literal(QueryError::ExpectedValueWithBetweenOperator)
        };
        let low = value(self)?;
        if !self.at_keyword("AND") {
            return Err(self.error_here(
                QueryError::ExpectedAnd,
                "Expected AND between BETWEEN's values.",
            ));
        }
        self.bump();
        let high = value(self)?;
        if !low.kind.same_kind(&high.kind) {
            return Err(GoogleAdsError::query(
                QueryError::ProhibitedValueCombinationWithBetweenOperator,
                self.query,
                high.offset,
                high.text,
                "BETWEEN's two values must be of one kind.",
            ));
        }
        Ok(Operand::Range(low, high))
    }

    fn limit(&mut self) -> Result<u64, GoogleAdsError> {
        let Some(t) = self.bump() else {
            return Err(self.end_of_query("a number after LIMIT"));
        };
        let integer = t.kind == TokenKind::Number
            && t.text
                .trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit());
        if !integer {
            return Err(self.error(
                QueryError::BadLimitValue,
                &t,
                format!("LIMIT takes a positive integer, not '{}'.", t.text),
            ));
        }
        match t.text.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            Err(_) if !t.text.starts_with('-') => {
                Err(self.error(QueryError::BadLimitValue, &t, "LIMIT is too large."))
            }
            _ => Err(self.error(
                QueryError::LimitValueTooLow,
                &t,
                "LIMIT must be at least 1.",
            )),
        }
    }

    fn parameter(&mut self) -> Result<Parameter, GoogleAdsError> {
        let Some(t) = self.bump() else {
            return Err(self.end_of_query("a parameter"));
        };
        if t.kind != TokenKind::Word {
            return Err(self.error(
                QueryError::BadParameterName,
                &t,
                "Expected a parameter name.",
            ));
        }
        match self.bump() {
            Some(eq) if eq.kind == TokenKind::Operator && eq.text == "=" => {}
            Some(other) => {
                return Err(self.error(QueryError::UnexpectedInput, &other, "Expected '='."))
            }
            None => return Err(self.end_of_query("'='")),
        }
        let value = self.literal(QueryError::BadParameterValue)?;
        Ok(Parameter {
            name: Spanned {
                text: t.text,
                offset: t.offset,
            },
            value,
        })
    }
}

fn is_reserved(t: &Token) -> bool {
    RESERVED.iter().any(|kw| t.is_keyword(kw))
}

/// `-?[0-9]+(.[0-9]+)?`.
fn is_number(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let mut parts = digits.splitn(2, '.');
    let whole = parts.next().unwrap_or("");
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    all_digits(whole) && parts.next().is_none_or(all_digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_clause() {
        let q = parse(
            "select campaign.id, metrics.clicks FROM campaign \
             WHERE campaign.status IN (ENABLED, PAUSED) AND metrics.clicks BETWEEN 1 AND 5 \
             AND campaign.end_date IS NOT NULL AND campaign.labels CONTAINS ANY ('a') \
             ORDER BY metrics.clicks DESC, campaign.id LIMIT 3 PARAMETERS include_drafts = true",
        )
        .unwrap();
        assert_eq!(q.select.len(), 2);
        assert_eq!(q.from.text, "campaign");
        let ops: Vec<Operator> = q.conditions.iter().map(|c| c.operator).collect();
        assert_eq!(
            ops,
            vec![
                Operator::In,
                Operator::Between,
                Operator::IsNotNull,
                Operator::ContainsAny
            ]
        );
        assert!(q.order_by[0].descending && !q.order_by[1].descending);
        assert_eq!(q.limit, Some(3));
        assert_eq!(q.parameters[0].name.text, "include_drafts");
    }

    #[test]
    fn numbers_follow_the_grammar() {
        assert!(is_number("12") && is_number("-3.25") && is_number("0.5"));
        assert!(!is_number("1.") && !is_number("1.2.3") && !is_number("12ab") && !is_number("-"));
    }
}
