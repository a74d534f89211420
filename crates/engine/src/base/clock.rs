//! The engine's clock: the time every rule reads as "now".
//!
//! Replays and checks need to ask what ELNOR would have shown at another moment ("one hour after
//! the project's last session"). So no part of the engine or its adapters reads the system clock
//! directly: they call [`now`], which is the system time unless an override is set, from
//! `ELNOR_NOW=<RFC 3339>` in the environment or by the CLI's global `--now`. The override is for
//! replays and tests, not for use in a running app.

use std::sync::RwLock;

use chrono::{DateTime, Utc};

use crate::base::error::{Error, Result};

static OVERRIDE: RwLock<Option<DateTime<Utc>>> = RwLock::new(None);

/// The current time: the override when one is set, else the system clock.
pub fn now() -> DateTime<Utc> {
    match OVERRIDE.read() {
        Ok(guard) => guard.unwrap_or_else(Utc::now),
        Err(poisoned) => poisoned.into_inner().unwrap_or_else(Utc::now),
    }
}

/// Parses an RFC 3339 instant given as the clock override.
pub fn parse(text: &str) -> Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| Error::InvalidEntry(format!("not an RFC 3339 time ({e}): {text:?}")))
}

/// Sets (or with `None` clears) the override for the whole process.
pub fn set_override(at: Option<DateTime<Utc>>) {
    match OVERRIDE.write() {
        Ok(mut guard) => *guard = at,
        Err(poisoned) => *poisoned.into_inner() = at,
    }
}

/// Reads `ELNOR_NOW` and sets the override from it; an unset or empty variable leaves the system
/// clock. A value that is not an RFC 3339 time is an error, never silently ignored.
pub fn init_from_env() -> Result<Option<DateTime<Utc>>> {
    match std::env::var("ELNOR_NOW") {
        Ok(v) if !v.trim().is_empty() => {
            let at = parse(&v)?;
            set_override(Some(at));
            Ok(Some(at))
        }
        _ => Ok(None),
    }
}
