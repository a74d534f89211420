//! Redaction applied before transcript text leaves the store (CSA §8.4 privacy filter):
//! `<private>…</private>` spans and strings that look like secrets (API keys, tokens, private
//! keys, `password=…` assignments) are masked. Raw turns in the store are never changed.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// What masked text is replaced with.
pub const MASK: &str = "[redacted]";

static PRIVATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)<private>.*?(?:</private>|\z)").expect("valid regex"));

/// Patterns of whole secrets, replaced entirely.
static SECRETS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
        r"\bsk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{16,}",
        r"\bgh[pousr]_[A-Za-z0-9]{20,}",
        r"\bgithub_pat_[A-Za-z0-9_]{20,}",
        r"\bAKIA[0-9A-Z]{16}\b",
        r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
        r"\bAIza[0-9A-Za-z_\-]{35}",
        r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("valid regex"))
    .collect()
});

/// `Bearer <token>` and `key = value` assignments: the name stays, the value is masked.
static ASSIGNMENTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(\bbearer\s+|\b(?:api[_-]?key|secret|token|password|passwd|access[_-]?key|auth)["']?\s*[:=]\s*["']?)([A-Za-z0-9\-._~+/=]{8,})"#,
    )
    .expect("valid regex")
});

/// `text` with private spans and secret-looking strings masked.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    if let Cow::Owned(s) = PRIVATE.replace_all(&out, "[private]") {
        out = Cow::Owned(s);
    }
    for re in SECRETS.iter() {
        if let Cow::Owned(s) = re.replace_all(&out, MASK) {
            out = Cow::Owned(s);
        }
    }
    if let Cow::Owned(s) = ASSIGNMENTS.replace_all(&out, format!("${{1}}{MASK}")) {
        out = Cow::Owned(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::redact;

    #[test]
    fn masks_private_spans_and_secrets() {
        let text = "\
keep this <private>my diagnosis</private> and this
export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234567890
token: ghp_abcdefghijklmnopqrstuvwxyz0123456789
curl -H 'Authorization: Bearer abc.def-ghi_jkl123456'
aws AKIAABCDEFGHIJKLMNOP and password=\"hunter2hunter2\"
jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA
-----END RSA PRIVATE KEY-----
unclosed <private>rest of the turn";
        expect![[r#"
            keep this [private] and this
            export OPENAI_API_KEY=[redacted]
            token: [redacted]
            curl -H 'Authorization: Bearer [redacted]'
            aws [redacted] and password="[redacted]"
            jwt [redacted]
            [redacted]
            unclosed [private]"#]]
        .assert_eq(&redact(text));
    }

    #[test]
    fn ordinary_text_is_untouched_and_not_copied() {
        let text = "The token budget is 4000; pass the key decision to Christensen.";
        assert!(matches!(redact(text), std::borrow::Cow::Borrowed(_)));
    }
}
