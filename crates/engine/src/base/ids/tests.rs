//! Typed ids: what a work context id (a file name) and the plain ids accept and refuse.

use super::*;

#[test]
fn work_context_ids_reject_paths_and_hidden_names() {
    for bad in [
        "",
        "../etc",
        "a/b",
        "a\\b",
        ".hidden",
        "wc id",
        "wc\n",
        &"x".repeat(121),
    ] {
        let err = WorkContextId::new(bad).unwrap_err();
        assert!(
            err.to_string().contains("work context id"),
            "{bad:?} gave {err}"
        );
    }
    for good in [
        "wc_unlinked",
        "wc_auto_0123456789ab",
        "henderson-v-acme.2026",
    ] {
        assert_eq!(WorkContextId::new(good).unwrap().as_str(), good);
    }
}

#[test]
fn plain_ids_reject_empty_and_control_characters() {
    assert!(SessionId::new("").is_err());
    assert!(SessionId::new("a\u{0}b").is_err());
    assert!(EntityId::new("x".repeat(121)).is_err());
    assert_eq!(SessionId::new("sess-1").unwrap().to_string(), "sess-1");
}

#[test]
fn work_context_id_deserialization_validates() {
    let err = serde_json::from_str::<WorkContextId>("\"../../x\"").unwrap_err();
    assert!(err.to_string().contains("work context id"));
}
