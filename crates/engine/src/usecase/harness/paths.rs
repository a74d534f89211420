//! Where each harness keeps the settings ELNOR writes and reads. The adapters build a
//! [`HarnessPaths`] from the environment ([`HarnessPaths::from_env`]); tests build one over a
//! temporary home ([`HarnessPaths::for_home`]), so nothing here ever reaches the real one.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::base::error::{Error, Result};

/// The settings locations of the three harnesses for one person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessPaths {
    /// The person's home: Claude Code's settings are in `.claude/` under it.
    pub home: PathBuf,
    /// Codex's home: `$CODEX_HOME`, else `~/.codex`.
    pub codex_home: PathBuf,
    /// OpenClaw's config file: `$OPENCLAW_CONFIG_PATH`, else `openclaw.json` in
    /// `$OPENCLAW_STATE_DIR`, else in `.openclaw/` under `$OPENCLAW_HOME` or the home.
    pub openclaw_config: PathBuf,
}

impl HarnessPaths {
    /// The default locations under `home`, as with no harness variables set.
    pub fn for_home(home: impl Into<PathBuf>) -> HarnessPaths {
        HarnessPaths::from_vars(home.into(), |_| None)
    }

    /// The locations for `home` and the harnesses' variables as `var` reads them (`CODEX_HOME`,
    /// `OPENCLAW_HOME`, `OPENCLAW_STATE_DIR`, `OPENCLAW_CONFIG_PATH`). A blank value counts as
    /// unset, and a leading `~` means the home, as the harnesses themselves read them.
    pub fn from_vars(home: PathBuf, var: impl Fn(&str) -> Option<String>) -> HarnessPaths {
        let get = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let codex_home = get("CODEX_HOME")
            .map(|v| expand(&v, &home))
            .unwrap_or_else(|| home.join(".codex"));
        // OpenClaw resolves its own home first; its state directory and config path expand `~`
        // against that home, and an explicit path wins over what the home implies.
        let openclaw_home = get("OPENCLAW_HOME")
            .map(|v| expand(&v, &home))
            .unwrap_or_else(|| home.clone());
        let openclaw_config = match (get("OPENCLAW_CONFIG_PATH"), get("OPENCLAW_STATE_DIR")) {
            (Some(config), _) => expand(&config, &openclaw_home),
            (None, Some(state)) => expand(&state, &openclaw_home).join("openclaw.json"),
            (None, None) => openclaw_home.join(".openclaw").join("openclaw.json"),
        };
        HarnessPaths {
            home,
            codex_home,
            openclaw_config,
        }
    }

    /// The locations this process's environment names. Fails only when there is no home
    /// directory at all (`HOME`, or `USERPROFILE` on Windows).
    pub fn from_env() -> Result<HarnessPaths> {
        let home = crate::graph::projects::home_dir().ok_or_else(|| {
            Error::InvalidInput(
                "no home directory: set HOME so ELNOR can find the harnesses' settings".into(),
            )
        })?;
        Ok(HarnessPaths::from_vars(PathBuf::from(home), |name| {
            std::env::var(name).ok()
        }))
    }

    /// Claude Code's user settings, where its hooks live.
    pub fn claude_settings(&self) -> PathBuf {
        self.home.join(".claude").join("settings.json")
    }

    /// Claude Code's own state file, which holds user-scope MCP servers; ELNOR only reads it.
    pub fn claude_state(&self) -> PathBuf {
        self.home.join(".claude.json")
    }

    /// Codex's hooks file.
    pub fn codex_hooks(&self) -> PathBuf {
        self.codex_home.join("hooks.json")
    }

    /// Codex's config, where its MCP servers (and inline hooks, if any) live.
    pub fn codex_config(&self) -> PathBuf {
        self.codex_home.join("config.toml")
    }
}

/// `value` with a leading `~` replaced by `home`.
fn expand(value: &str, home: &Path) -> PathBuf {
    let value = value.trim();
    match value.strip_prefix('~') {
        Some("") => home.to_owned(),
        Some(rest) if rest.starts_with('/') || rest.starts_with('\\') => home.join(&rest[1..]),
        _ => PathBuf::from(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_each_variable() {
        let home = PathBuf::from("/h");
        let p = HarnessPaths::for_home(&home);
        assert_eq!(
            p.claude_settings(),
            PathBuf::from("/h/.claude/settings.json")
        );
        assert_eq!(p.codex_config(), PathBuf::from("/h/.codex/config.toml"));
        assert_eq!(
            p.openclaw_config,
            PathBuf::from("/h/.openclaw/openclaw.json")
        );

        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let p = HarnessPaths::from_vars(home.clone(), vars(&[("CODEX_HOME", "~/cx")]));
        assert_eq!(p.codex_hooks(), PathBuf::from("/h/cx/hooks.json"));
        let p = HarnessPaths::from_vars(home.clone(), vars(&[("OPENCLAW_HOME", "/srv/oc")]));
        assert_eq!(
            p.openclaw_config,
            PathBuf::from("/srv/oc/.openclaw/openclaw.json")
        );
        let p = HarnessPaths::from_vars(
            home.clone(),
            vars(&[
                ("OPENCLAW_HOME", "/srv/oc"),
                ("OPENCLAW_STATE_DIR", "~/state"),
            ]),
        );
        assert_eq!(
            p.openclaw_config,
            PathBuf::from("/srv/oc/state/openclaw.json")
        );
        let p = HarnessPaths::from_vars(
            home.clone(),
            vars(&[
                ("OPENCLAW_STATE_DIR", "/s"),
                ("OPENCLAW_CONFIG_PATH", "/c/oc.json5"),
            ]),
        );
        assert_eq!(p.openclaw_config, PathBuf::from("/c/oc.json5"));
        // Blank means unset.
        let p = HarnessPaths::from_vars(home, vars(&[("CODEX_HOME", "  ")]));
        assert_eq!(p.codex_home, PathBuf::from("/h/.codex"));
    }
}
