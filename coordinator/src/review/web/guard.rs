//! Who is asking: the reviewer behind the session cookie (set from a
//! personal link), the form token that proves a form came from our own
//! page, and the headers every page carries.

use axum::http::{header, HeaderMap, HeaderValue};

/// The session cookie's name.
pub const COOKIE: &str = "adfarm_review";

/// The content security policy of every page: our own script and style
/// only, no inline code, no images, frames or foreign form targets. Even
/// markup that slipped into a page could neither run nor fetch anything.
pub const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
img-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The token in the request's session cookie.
pub fn session_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
        .filter(|v| !v.is_empty())
}

/// The `Set-Cookie` value that starts a session with `token`: not
/// readable by scripts, never sent with a request from another site.
pub fn session_cookie(token: &str) -> String {
    format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/")
}

/// The form token of the reviewer whose token hashes to `token_hash`:
/// derived, so nothing is stored, and useless on another reviewer.
pub fn form_token(token_hash: &str) -> String {
    blake3::derive_key("adfarm review form token v1", token_hash.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether a form post may be from another site: the browser says so
/// (`Sec-Fetch-Site`), or its `Origin` is not this host.
pub fn cross_site(headers: &HeaderMap) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    // Browsers that send Fetch Metadata say it outright; a subdomain
    // ("same-site") is another site here too.
    if let Some(site) = text("sec-fetch-site") {
        return !matches!(site, "same-origin" | "none");
    }
    match (text("origin"), text("host")) {
        (Some(origin), Some(host)) => {
            let bare = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .unwrap_or(origin);
            bare != host
        }
        (Some(_), None) => true,
        _ => false,
    }
}

/// Adds the headers every answer carries.
pub fn harden(headers: &mut HeaderMap) {
    let set = |h: &mut HeaderMap, k: header::HeaderName, v: &'static str| {
        h.insert(k, HeaderValue::from_static(v));
    };
    set(headers, header::CONTENT_SECURITY_POLICY, POLICY);
    set(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    // The personal link carries the token: never pass it on to another
    // site. (`no-referrer` would also make the browser send `Origin: null`
    // on our own form posts.)
    set(headers, header::REFERRER_POLICY, "same-origin");
    set(headers, header::CACHE_CONTROL, "no-store");
    set(headers, header::X_FRAME_OPTIONS, "DENY");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn the_session_token_is_read_from_among_other_cookies() {
        let h = headers(&[("cookie", "a=1; adfarm_review=abc; b=2")]);
        assert_eq!(session_token(&h).as_deref(), Some("abc"));
        assert_eq!(
            session_token(&headers(&[("cookie", "adfarm_review=")])),
            None
        );
        assert_eq!(session_token(&HeaderMap::new()), None);
    }

    #[test]
    fn posts_from_other_sites_are_told_apart_from_our_own() {
        assert!(!cross_site(&headers(&[("host", "127.0.0.1:8750")])));
        assert!(!cross_site(&headers(&[
            ("host", "127.0.0.1:8750"),
            ("origin", "http://127.0.0.1:8750"),
            ("sec-fetch-site", "same-origin"),
        ])));
        assert!(cross_site(&headers(&[
            ("host", "127.0.0.1:8750"),
            ("origin", "http://evil.example"),
        ])));
        assert!(cross_site(&headers(&[("sec-fetch-site", "cross-site")])));
        assert!(cross_site(&headers(&[("sec-fetch-site", "same-site")])));
        assert!(cross_site(&headers(&[
            ("host", "127.0.0.1:8750"),
            ("origin", "null"),
        ])));
    }

    #[test]
    fn form_tokens_differ_per_reviewer() {
        assert_ne!(form_token("a"), form_token("b"));
        assert_eq!(form_token("a"), form_token("a"));
        assert_eq!(form_token("a").len(), 64);
    }
}
