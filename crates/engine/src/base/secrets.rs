//! Secrets, which today means the synthesis model's API key: kept only in the OS keyring (Secret
//! Service over D-Bus on Linux, the Keychain on macOS, Credential Manager on Windows), under the
//! service name `elnor`.
//!
//! This module owns the [`SecretStore`] seam and its one real implementation, [`OsKeyring`]. There
//! is deliberately no file fallback: when the keyring is locked or missing, the caller gets an
//! [`Error::Keyring`] that says how to unlock it, and the secret is not written anywhere. A key on
//! disk would end up in backups, synced folders and support bundles, which is exactly what the
//! keyring exists to prevent. No error, log line or `Debug` output here ever contains a secret.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::base::error::{Error, Result};

/// The keyring service name under which the app keeps its secrets.
pub const SERVICE: &str = "elnor";

/// The keyring account of the synthesis model's API key.
pub const SYNTHESIS_API_KEY: &str = "synthesis-api-key";
/// The account of the embedding endpoint's API key (OpenAI-compatible embedders only).
pub const EMBEDDING_API_KEY: &str = "embedding-api-key";

/// Where secrets are kept. The app uses [`OsKeyring`]; tests of callers use [`MemorySecrets`].
pub trait SecretStore: Send + Sync {
    /// The secret of `account`, or `None` when none is stored.
    fn get(&self, account: &str) -> Result<Option<String>>;
    /// Stores (or replaces) the secret of `account`.
    fn set(&self, account: &str, secret: &str) -> Result<()>;
    /// Removes the secret of `account`; removing one that is not there is not an error, so
    /// "forget my key" can always be repeated safely.
    fn delete(&self, account: &str) -> Result<()>;
}

/// The OS keyring, under one service name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OsKeyring {
    service: String,
}

impl Default for OsKeyring {
    fn default() -> Self {
        OsKeyring::new()
    }
}

impl OsKeyring {
    /// The app's keyring, service [`SERVICE`].
    pub fn new() -> OsKeyring {
        OsKeyring::with_service(SERVICE)
    }

    /// A keyring under another service name, so tests never touch the app's own entries.
    pub fn with_service(service: &str) -> OsKeyring {
        OsKeyring {
            service: service.to_owned(),
        }
    }

    fn entry(&self, account: &str, op: Op) -> Result<keyring::Entry> {
        keyring::Entry::new(&self.service, account).map_err(|e| keyring_error(&e, op))
    }
}

impl SecretStore for OsKeyring {
    fn get(&self, account: &str) -> Result<Option<String>> {
        match self.entry(account, Op::Get)?.get_password() {
            Ok(secret) => Ok(Some(secret)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keyring_error(&e, Op::Get)),
        }
    }

    fn set(&self, account: &str, secret: &str) -> Result<()> {
        self.entry(account, Op::Set)?
            .set_password(secret)
            .map_err(|e| keyring_error(&e, Op::Set))
    }

    fn delete(&self, account: &str) -> Result<()> {
        match self.entry(account, Op::Delete)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(keyring_error(&e, Op::Delete)),
        }
    }
}

/// What was being done when the keyring failed, so the message can say what did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Get,
    Set,
    Delete,
}

impl Op {
    fn consequence(self) -> &'static str {
        match self {
            Op::Get => "the secret could not be read",
            Op::Set => "the secret was not saved, here or anywhere else",
            Op::Delete => "the secret was not deleted",
        }
    }
}

/// How to unlock this platform's keyring, in the words its users know.
fn unlock_hint() -> &'static str {
    if cfg!(target_os = "macos") {
        "the macOS Keychain is locked or refused access; unlock the login keychain (Keychain Access) \
         and allow ELNOR to use it, then try again"
    } else if cfg!(target_os = "windows") {
        "Windows Credential Manager is unavailable or refused access; sign in to your Windows \
         account and try again"
    } else {
        "the OS keyring is locked or unavailable (Secret Service over D-Bus); unlock it (e.g. log \
         in to your desktop session or run gnome-keyring-daemon --unlock) and try again"
    }
}

/// Most characters of a platform error kept as detail.
const MAX_DETAIL_CHARS: usize = 200;

/// Turns a keyring failure into a message that says what to do. It is built from the failure's
/// kind and the platform's own error text (D-Bus, Keychain or Win32 messages, which name the
/// service and the failure, never the password); `BadEncoding`'s bytes, which *are* the stored
/// secret, and `Ambiguous`'s credentials are never formatted.
fn keyring_error(e: &keyring::Error, op: Op) -> Error {
    let consequence = op.consequence();
    let problem = match e {
        keyring::Error::PlatformFailure(source) | keyring::Error::NoStorageAccess(source) => {
            format!(
                "{}; {consequence} (detail: {})",
                unlock_hint(),
                detail(&source.to_string())
            )
        }
        keyring::Error::NoEntry => format!("no such entry; {consequence}"),
        keyring::Error::BadEncoding(_) => format!(
            "the stored secret is not UTF-8 text; {consequence}; store it again to replace it"
        ),
        keyring::Error::TooLong(attribute, limit) => format!(
            "the {} is longer than the keyring allows ({limit}); {consequence}",
            detail(attribute)
        ),
        keyring::Error::Invalid(attribute, reason) => format!(
            "invalid {}: {}; {consequence}",
            detail(attribute),
            detail(reason)
        ),
        keyring::Error::Ambiguous(_) => format!(
            "the keyring holds more than one matching entry; remove the duplicates (e.g. with \
             your keyring manager) and try again; {consequence}"
        ),
        // `keyring::Error` is non-exhaustive; a future kind still gets a usable message.
        other => format!("{}; {consequence}", detail(&other.to_string())),
    };
    Error::Keyring { problem }
}

fn detail(text: &str) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_DETAIL_CHARS)
        .collect();
    line.trim().to_owned()
}

/// An in-memory [`SecretStore`] for unit tests of callers. It is not a fallback and the app never
/// uses it: a secret kept here is gone when the process ends.
#[derive(Default)]
pub struct MemorySecrets(Mutex<BTreeMap<String, String>>);

impl MemorySecrets {
    /// The map, even if another thread panicked while holding it: the map itself is always
    /// consistent, because every operation is a single insert, remove or clone.
    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl std::fmt::Debug for MemorySecrets {
    /// Shows the accounts only, so a test failure never prints a secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemorySecrets")
            .field("accounts", &self.map().keys().collect::<Vec<_>>())
            .finish()
    }
}

impl SecretStore for MemorySecrets {
    fn get(&self, account: &str) -> Result<Option<String>> {
        Ok(self.map().get(account).cloned())
    }

    fn set(&self, account: &str, secret: &str) -> Result<()> {
        self.map().insert(account.to_owned(), secret.to_owned());
        Ok(())
    }

    fn delete(&self, account: &str) -> Result<()> {
        self.map().remove(account);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
