//! Endpoint URLs fit for logs and error messages: every process logs the
//! broker, store and model URLs it talks to, and any of them may carry a
//! credential.

/// `url` without its secrets, for logs and error messages: the user info
/// (`user:password@`) becomes `***@`, since a username can be a token too,
/// and the value of each query parameter named like a secret (see
/// [`is_secret_param`]) becomes `***`; other parameters (`db=1`,
/// `api-version=...`) stay, since they help an operator. An unparsable URL
/// is not echoed at all, since it may still hold a secret.
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return "<unparsable URL>".to_string();
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        // Only fails for URLs that cannot have credentials, which have none.
        let _ = parsed.set_username("***");
        let _ = parsed.set_password(None);
    }
    if parsed.query_pairs().any(|(k, _)| is_secret_param(&k)) {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let v = if is_secret_param(&k) {
                    "***".to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
}

/// Whether a query parameter named `name` holds a secret: Redis's
/// `pass`/`password`, Azure's `api-key`, tokens, signatures.
pub fn is_secret_param(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "pass",
        "key",
        "token",
        "secret",
        "sig",
        "auth",
        "credential",
    ]
    .iter()
    .any(|word| name.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_show() {
        assert_eq!(
            redact_url("amqp://guest:s3cret@rabbit:5672/%2f"),
            "amqp://***@rabbit:5672/%2f"
        );
        assert_eq!(redact_url("amqps://u:p@ss@h/v"), "amqps://***@h/v");
        assert_eq!(
            redact_url("redis://user:s3cret@cache:6379/2"),
            "redis://***@cache:6379/2"
        );
        assert_eq!(redact_url("redis://:s3cret@cache"), "redis://***@cache");
        assert_eq!(
            redact_url("https://sk-token@api.example.com/v1"),
            "https://***@api.example.com/v1"
        );
        assert!(!redact_url("redis://us er:s3cret@").contains("s3cret"));
    }

    #[test]
    fn urls_without_secrets_are_unchanged() {
        assert_eq!(redact_url("amqp://rabbit/%2f"), "amqp://rabbit/%2f");
        assert_eq!(redact_url("redis://cache:6379"), "redis://cache:6379");
        assert_eq!(
            redact_url("http://127.0.0.1:8000/v1"),
            "http://127.0.0.1:8000/v1"
        );
    }

    #[test]
    fn secret_query_values_go_and_the_rest_stays() {
        let unix = redact_url("redis+unix:///run/redis.sock?db=1&pass=s3cret");
        assert!(!unix.contains("s3cret") && unix.contains("db=1"), "{unix}");
        let azure = redact_url("https://x.openai.azure.com/v1?api-version=2024&api-key=abc");
        assert_eq!(
            azure,
            "https://x.openai.azure.com/v1?api-version=2024&api-key=***"
        );
        assert!(is_secret_param("Access_Token") && !is_secret_param("db"));
    }
}
