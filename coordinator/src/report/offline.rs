//! What an HTML page would fetch when opened: the check behind the HTML
//! report's promise that it is self-contained (it opens offline and can be
//! attached to an email).

/// Elements that load or run something by themselves.
const ELEMENTS: [&str; 7] = [
    "<script", "<link", "<iframe", "<object", "<embed", "<base", "<img",
];

/// Attributes whose value is a location to load.
const ATTRIBUTES: [&str; 6] = ["src=", "href=", "srcset=", "data=", "poster=", "action="];

/// Whether a referenced location stays inside the page.
fn in_page(value: &str) -> bool {
    let v = value.trim_start_matches(['"', '\'', ' ']);
    v.starts_with('#') || v.starts_with("data:")
}

/// Each place in `html` that makes a browser fetch or run something: a
/// loading element, an attribute or CSS `url(...)` naming a location
/// outside the page (`#id` and `data:` stay inside), a CSS `@import`.
/// Empty for a self-contained page.
pub fn external_references(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let snippet = |at: usize| lower[at..].chars().take(60).collect::<String>();
    let mut out = vec![];
    for e in ELEMENTS {
        out.extend(lower.match_indices(e).map(|(i, _)| snippet(i)));
    }
    for a in ATTRIBUTES {
        for (i, _) in lower.match_indices(a) {
            // A whole attribute name: `xlink:href=` counts, `data-src=` not.
            let before = lower[..i].chars().next_back();
            let named = before.is_none_or(|c| c.is_whitespace() || c == ':');
            if named && !in_page(&lower[i + a.len()..]) {
                out.push(snippet(i));
            }
        }
    }
    for (i, _) in lower.match_indices("url(") {
        if !in_page(&lower[i + 4..]) {
            out.push(snippet(i));
        }
    }
    out.extend(lower.match_indices("@import").map(|(i, _)| snippet(i)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_fetch_is_found() {
        for page in [
            r#"<img src="http://x/a.png">"#,
            r#"<image xlink:href="https://x/a.png"/>"#,
            r#"<a href="//x/page">"#,
            r#"<div style="background:url('http://x/b.png')">"#,
            r#"<style>@import "x.css";</style>"#,
            r#"<link rel="stylesheet" href="x.css">"#,
            r#"<script>1</script>"#,
            r#"<iframe></iframe>"#,
            r#"<use href="sprites.svg#a"/>"#,
        ] {
            assert!(!external_references(page).is_empty(), "{page}");
        }
        let inside = r##"<svg><use href="#a"/><rect fill="url(#g)"/></svg><p data-src="x">"##;
        assert_eq!(external_references(inside), Vec::<String>::new());
    }

    #[test]
    fn the_html_report_fetches_nothing() {
        use super::super::{fixture, render, Format};
        let html = render(&fixture::report(), Format::Html);
        assert_eq!(external_references(&html), Vec::<String>::new());
    }
}
