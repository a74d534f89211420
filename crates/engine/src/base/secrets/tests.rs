//! The secret store: the in-memory store's contract, error messages that never hold the secret,
//! and (ignored by default, since they need a Secret Service) the real OS keyring.

use super::*;
use crate::base::error::ErrorKind;

const SECRET: &str = "sk-test-SECRET-123";

#[test]
fn memory_secrets_round_trip() {
    let store = MemorySecrets::default();
    assert_eq!(store.get(SYNTHESIS_API_KEY).unwrap(), None);
    store.set(SYNTHESIS_API_KEY, SECRET).unwrap();
    assert_eq!(
        store.get(SYNTHESIS_API_KEY).unwrap().as_deref(),
        Some(SECRET)
    );
    store.set(SYNTHESIS_API_KEY, "sk-new").unwrap();
    assert_eq!(
        store.get(SYNTHESIS_API_KEY).unwrap().as_deref(),
        Some("sk-new")
    );
    assert_eq!(store.get("other-account").unwrap(), None);
    store.delete(SYNTHESIS_API_KEY).unwrap();
    assert_eq!(store.get(SYNTHESIS_API_KEY).unwrap(), None);
    // Deleting what is not there is fine, so "forget my key" can be repeated.
    store.delete(SYNTHESIS_API_KEY).unwrap();
}

#[test]
fn memory_secrets_debug_shows_accounts_not_secrets() {
    let store = MemorySecrets::default();
    store.set(SYNTHESIS_API_KEY, SECRET).unwrap();
    let debug = format!("{store:?}");
    assert_eq!(debug, "MemorySecrets { accounts: [\"synthesis-api-key\"] }");
}

#[test]
fn a_store_is_usable_as_a_trait_object_across_threads() {
    let store: std::sync::Arc<dyn SecretStore> = std::sync::Arc::new(MemorySecrets::default());
    let writer = std::sync::Arc::clone(&store);
    std::thread::spawn(move || writer.set(SYNTHESIS_API_KEY, SECRET).unwrap())
        .join()
        .unwrap();
    assert_eq!(
        store.get(SYNTHESIS_API_KEY).unwrap().as_deref(),
        Some(SECRET)
    );
}

#[test]
fn os_keyring_uses_the_elnor_service() {
    assert_eq!(OsKeyring::new(), OsKeyring::with_service("elnor"));
    assert_eq!(OsKeyring::default(), OsKeyring::new());
}

#[test]
fn keyring_errors_say_what_to_do_and_never_hold_the_secret() {
    let platform = || -> Box<dyn std::error::Error + Send + Sync> {
        "org.freedesktop.DBus.Error.ServiceUnknown: no Secret Service".into()
    };
    let cases = [
        (keyring::Error::PlatformFailure(platform()), Op::Set),
        (keyring::Error::NoStorageAccess(platform()), Op::Get),
        (
            keyring::Error::BadEncoding(SECRET.as_bytes().to_vec()),
            Op::Get,
        ),
        (
            keyring::Error::TooLong("password".to_owned(), 4096),
            Op::Set,
        ),
        (
            keyring::Error::Invalid("user".to_owned(), "empty".to_owned()),
            Op::Delete,
        ),
        (keyring::Error::Ambiguous(Vec::new()), Op::Get),
    ];
    let messages: Vec<String> = cases
        .iter()
        .map(|(e, op)| {
            let err = keyring_error(e, *op);
            assert_eq!(err.kind(), ErrorKind::Config);
            err.to_string()
        })
        .collect();
    for message in &messages {
        assert!(!message.contains(SECRET), "{message}");
        assert!(!message.contains("SECRET"), "{message}");
    }
    if cfg!(target_os = "linux") {
        expect_test::expect![[r#"
            OS keyring: the OS keyring is locked or unavailable (Secret Service over D-Bus); unlock it (e.g. log in to your desktop session or run gnome-keyring-daemon --unlock) and try again; the secret was not saved, here or anywhere else (detail: org.freedesktop.DBus.Error.ServiceUnknown: no Secret Service)
            OS keyring: the OS keyring is locked or unavailable (Secret Service over D-Bus); unlock it (e.g. log in to your desktop session or run gnome-keyring-daemon --unlock) and try again; the secret could not be read (detail: org.freedesktop.DBus.Error.ServiceUnknown: no Secret Service)
            OS keyring: the stored secret is not UTF-8 text; the secret could not be read; store it again to replace it
            OS keyring: the password is longer than the keyring allows (4096); the secret was not saved, here or anywhere else
            OS keyring: invalid user: empty; the secret was not deleted
            OS keyring: the keyring holds more than one matching entry; remove the duplicates (e.g. with your keyring manager) and try again; the secret could not be read"#]]
        .assert_eq(&messages.join("\n"));
    }
}

/// A service name no other run and no real app entry uses.
fn unique_service() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("elnor-test-{}-{nanos}", std::process::id())
}

/// Needs a running, unlocked Secret Service (or Keychain / Credential Manager). On Linux:
/// `dbus-run-session -- bash -c 'printf pw | gnome-keyring-daemon --unlock --components=secrets
/// >/dev/null; cargo test -p elnor-engine secrets -- --ignored'`.
#[test]
#[ignore = "needs an unlocked OS keyring"]
fn real_os_keyring_round_trip() {
    let store = OsKeyring::with_service(&unique_service());
    assert_eq!(store.get(SYNTHESIS_API_KEY).unwrap(), None);
    store.set(SYNTHESIS_API_KEY, SECRET).unwrap();
    assert_eq!(
        store.get(SYNTHESIS_API_KEY).unwrap().as_deref(),
        Some(SECRET)
    );
    store.set(SYNTHESIS_API_KEY, "sk-overwritten").unwrap();
    assert_eq!(
        store.get(SYNTHESIS_API_KEY).unwrap().as_deref(),
        Some("sk-overwritten")
    );
    // Another account under the same service is a separate entry.
    assert_eq!(store.get("another-account").unwrap(), None);
    store.delete(SYNTHESIS_API_KEY).unwrap();
    assert_eq!(store.get(SYNTHESIS_API_KEY).unwrap(), None);
    store.delete(SYNTHESIS_API_KEY).unwrap();
}

/// Set in the child process that [`locked_or_missing_keyring_is_a_clear_error`] starts.
const CHILD_MARKER: &str = "ELNOR_TEST_KEYRING_CHILD";

/// With no reachable D-Bus, every operation fails with the message that says how to unlock the
/// keyring. The bogus bus address is set only in a child run of this same test binary, so the
/// environment of this process (and of the round-trip test beside it) is never changed.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "starts a child test process; run with --ignored"]
fn locked_or_missing_keyring_is_a_clear_error() {
    if std::env::var_os(CHILD_MARKER).is_some() {
        let store = OsKeyring::with_service(&unique_service());
        let errors = [
            store.get(SYNTHESIS_API_KEY).unwrap_err(),
            store.set(SYNTHESIS_API_KEY, SECRET).unwrap_err(),
            store.delete(SYNTHESIS_API_KEY).unwrap_err(),
        ];
        for err in errors {
            let message = err.to_string();
            assert!(
                message.starts_with(
                    "OS keyring: the OS keyring is locked or unavailable (Secret Service over \
                     D-Bus); unlock it"
                ),
                "{message}"
            );
            assert!(!message.contains(SECRET), "{message}");
        }
        println!("child checked the keyring errors");
        return;
    }
    let name = "base::secrets::tests::locked_or_missing_keyring_is_a_clear_error";
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_MARKER, "1")
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/elnor-test-bus",
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
    // Proves the child ran the check rather than matching no test.
    assert!(
        stdout.contains("child checked the keyring errors"),
        "child did not run the check:\n{stdout}\n{stderr}"
    );
}
