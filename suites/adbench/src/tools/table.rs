//! Turning report rows into labelled JSON: key columns per grouping, metric
//! columns per field, `order_by`, and paging.

use serde_json::{json, Map, Value};

use super::args::Args;
use super::error::ToolError;
use super::fields::Field;
use super::spec::MAX_PAGE_SIZE;
use crate::world::catalog::{CreativeType, AGES, CITIES, GENDERS, REGIONS};
use crate::world::{Counts, Key, World};

/// A requested ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    /// Field sorted on.
    pub field: Field,
    /// Largest first.
    pub descending: bool,
}

/// Parses `order_by` ("cost", "cost desc", "ctr asc"); the field must be one requested.
///
/// # Errors
/// A bad-argument error naming `order_by`.
pub fn parse_order(a: &Args<'_>, fields: &[Field]) -> Result<Option<Order>, ToolError> {
    let Some(s) = a.opt_string("order_by")? else {
        return Ok(None);
    };
    let mut parts = s.split_whitespace();
    let name = parts
        .next()
        .ok_or_else(|| ToolError::bad("order_by", "must name a field"))?;
    let field = Field::parse(name)
        .ok_or_else(|| ToolError::bad("order_by", format!("unknown field {name:?}")))?;
    if !fields.contains(&field) {
        return Err(ToolError::bad(
            "order_by",
            format!("orders by {name:?}, which is not in fields"),
        ));
    }
    let descending = match parts.next().map(str::to_ascii_lowercase).as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(other) => {
            return Err(ToolError::bad(
                "order_by",
                format!("direction must be asc or desc, got {other:?}"),
            ))
        }
    };
    if parts.next().is_some() {
        return Err(ToolError::bad(
            "order_by",
            "must be a field and an optional direction",
        ));
    }
    Ok(Some(Order { field, descending }))
}

/// Parses `fields`: known names, none twice.
///
/// # Errors
/// A bad-argument error naming `fields`.
pub fn parse_fields(a: &Args<'_>) -> Result<Vec<Field>, ToolError> {
    let mut out = Vec::new();
    for name in a.string_list("fields")? {
        let f = Field::parse(name)
            .ok_or_else(|| ToolError::bad("fields", format!("unknown field {name:?}")))?;
        if out.contains(&f) {
            return Err(ToolError::bad("fields", format!("lists {name:?} twice")));
        }
        out.push(f);
    }
    Ok(out)
}

/// Reads `page_size` (required) and `page` (default 1).
///
/// # Errors
/// A bad-argument error naming the argument.
pub fn parse_paging(a: &Args<'_>, default_size: Option<u64>) -> Result<(u64, u64), ToolError> {
    let size = a.int_in("page_size", 1, MAX_PAGE_SIZE, default_size)?;
    let page = a.int_in("page", 1, u32::MAX as u64, Some(1))?;
    Ok((size, page))
}

/// One page of `rows` with the paging envelope.
///
/// # Errors
/// A bad-argument error naming `page` when it is past the last page.
pub fn page_of(rows: Vec<Value>, size: u64, page: u64) -> Result<Map<String, Value>, ToolError> {
    let (rows, mut m) = paginate(rows, size, page)?;
    m.insert("rows".into(), Value::Array(rows));
    Ok(m)
}

/// The rows of one page and the paging envelope (without `rows`), so
/// reports render only the rows they show.
///
/// # Errors
/// A bad-argument error naming `page` when it is past the last page.
pub fn paginate<T>(
    rows: Vec<T>,
    size: u64,
    page: u64,
) -> Result<(Vec<T>, Map<String, Value>), ToolError> {
    let total = rows.len() as u64;
    let pages = total.div_ceil(size).max(1);
    if page > pages {
        return Err(ToolError::bad(
            "page",
            format!("page {page} is past the last page ({pages})"),
        ));
    }
    let start = ((page - 1) * size) as usize;
    let rows: Vec<T> = rows.into_iter().skip(start).take(size as usize).collect();
    let mut m = Map::new();
    m.insert("total_rows".into(), total.into());
    m.insert("page".into(), page.into());
    m.insert("page_size".into(), size.into());
    m.insert("total_pages".into(), pages.into());
    Ok((rows, m))
}

/// Key columns of a row.
pub fn key_columns(w: &World, key: &Key, row: &mut Map<String, Value>) {
    let mut put = |k: &str, v: Value| {
        row.insert(k.to_string(), v);
    };
    let group = |row: &mut dyn FnMut(&str, Value), g: usize| {
        row("Ad group ID", w.groups()[g].id.into());
        row("Ad group name", w.groups()[g].name.clone().into());
    };
    let creative = |row: &mut dyn FnMut(&str, Value), c: usize| {
        let cr = &w.creatives()[c];
        row("Creative ID", cr.id.into());
        row("Creative name", cr.name.clone().into());
        row("Creative type", cr.kind.name().into());
    };
    match *key {
        Key::Sum => {}
        Key::Date(d) => put("Date", d.to_string().into()),
        Key::Month(d) => put("Month", d.month_label().into()),
        Key::Week(d) => {
            put("Week", d.week_label().into());
            put("Week start", d.to_string().into());
        }
        Key::Site(s) => put("Site set", s.name().into()),
        Key::Account(a) => {
            put("Account ID", w.accounts()[a].id.into());
            put("Account name", w.accounts()[a].name.clone().into());
        }
        Key::AdGroup(g) => group(&mut put, g),
        Key::Creative(c) => creative(&mut put, c),
        Key::Material(kind, id) => put(
            if kind == CreativeType::Video {
                "Video material ID"
            } else {
                "Image material ID"
            },
            id.into(),
        ),
        Key::Asset(a, i) => {
            let (id, name) = &w.accounts()[a].assets[i];
            put("Marketing asset ID", (*id).into());
            put("Marketing asset", name.clone().into());
        }
        Key::Gender(i) => put("Gender", GENDERS[i].into()),
        Key::Age(i) => put("Age", AGES[i].into()),
        Key::Region(i) => put("Region", REGIONS[i].into()),
        Key::City(i) => {
            put("City", CITIES[i].into());
            put("Region", REGIONS[i / 3].into());
        }
        Key::Hour(h) => put("Hour", h.into()),
        Key::AdGroupHour(g, h) => {
            group(&mut put, g);
            put("Hour", h.into());
        }
        Key::CreativeHour(c, h) => {
            creative(&mut put, c);
            put("Hour", h.into());
        }
    }
}

/// Orders rows (stable, so ties keep the key order; undefined values last).
pub fn order_rows(mut rows: Vec<(Key, Counts)>, order: Option<Order>) -> Vec<(Key, Counts)> {
    if let Some(o) = order {
        rows.sort_by(|a, b| {
            let (x, y) = (o.field.number(&a.1), o.field.number(&b.1));
            match (x, y) {
                (Some(x), Some(y)) => {
                    if o.descending {
                        y.total_cmp(&x)
                    } else {
                        x.total_cmp(&y)
                    }
                }
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        });
    }
    rows
}

/// Renders rows with key and field columns.
pub fn render(w: &World, rows: &[(Key, Counts)], fields: &[Field]) -> Vec<Value> {
    rows.iter()
        .map(|(k, c)| {
            let mut m = Map::new();
            key_columns(w, k, &mut m);
            for f in fields {
                m.insert(f.label().to_string(), f.value(c));
            }
            Value::Object(m)
        })
        .collect()
}

/// Column labels of a report, key columns first.
pub fn columns(keys: &[&str], fields: &[Field]) -> Value {
    let mut v: Vec<Value> = keys.iter().map(|k| json!(k)).collect();
    v.extend(fields.iter().map(|f| json!(f.label())));
    Value::Array(v)
}
