//! Numbers as they appear in free text and observations: `1,234.5`, `-3.9%`,
//! `¥73.21`. Dates (`2026-07-20`) and times (`21:00`) are skipped whole, so
//! their parts are not read as numbers.

/// Every number in `text`, in order.
pub fn numbers(text: &str) -> Vec<f64> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit()
            || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            i += 1;
            continue;
        }
        let start = i;
        let mut s = String::new();
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() {
                s.push(c as char);
            } else if c == b','
                && i + 3 < b.len() + 1
                && b[i + 1..].iter().take(3).all(u8::is_ascii_digit)
                && !s.contains('.')
            {
                // a thousands separator: skip it
            } else if c == b'.' && !s.contains('.') && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            {
                s.push('.');
            } else {
                break;
            }
            i += 1;
        }
        // A date or a clock time: skip the rest of it.
        if matches!(b.get(i), Some(b'-') | Some(b':'))
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            && !s.contains('.')
        {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'-' || b[i] == b':') {
                i += 1;
            }
            continue;
        }
        let negative = start > 0
            && b[start - 1] == b'-'
            && (start < 2 || !b[start - 2].is_ascii_alphanumeric());
        if let Ok(v) = s.parse::<f64>() {
            out.push(if negative { -v } else { v });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::numbers;

    #[test]
    fn reads_numbers_and_skips_dates_and_times() {
        assert_eq!(
            numbers("Cost was 1,234.50 CNY, down -3.9% on 2026-07-20 at 21:00."),
            vec![1234.5, -3.9]
        );
        assert_eq!(
            numbers("ids 700750116 and 14379385; r2"),
            vec![700750116.0, 14379385.0]
        );
        assert_eq!(numbers("{\"CTR (%)\":1.25,\"Hour\":21}"), vec![1.25, 21.0]);
        assert!(numbers("no digits").is_empty());
    }
}
