//! `elnor sync`: the same memory on every machine, through a git remote the person owns.
//! `--remote` sets the remote (any git URL or a bare repository's path) and syncs; later runs
//! sync with it; `--status` says where sync stands without touching the network.

use std::process::ExitCode;

use elnor_engine::{Store, SyncRequest};

use crate::output;

#[derive(Debug, clap::Args)]
pub struct SyncArgs {
    /// The remote to sync with from now on: a git URL (SSH, HTTPS) or a path to a bare
    /// repository. Your own git credentials are used; ELNOR stores none.
    #[arg(long, value_name = "URL_OR_PATH")]
    pub remote: Option<String>,
    /// Whose memory this is (default: your git user.email). A remote holding another owner's
    /// memory is refused.
    #[arg(long, value_name = "OWNER")]
    pub owner: Option<String>,
    /// Where sync stands: the remote, the last sync, what waits to be sent, conflicts.
    #[arg(long, conflicts_with_all = ["remote", "owner"])]
    pub status: bool,
}

pub fn sync(store: &Store, a: &SyncArgs, json: bool) -> anyhow::Result<ExitCode> {
    let now = elnor_engine::now();
    if a.status {
        let s = elnor_engine::sync_status(store, now)?;
        if json {
            output::json(&s)?;
            return Ok(ExitCode::SUCCESS);
        }
        let name = s.device_name.as_deref().unwrap_or("this machine");
        println!("device     {} ({name})", s.device);
        match &s.remote {
            Some(r) => println!("remote     {r}"),
            None => println!("remote     none: elnor sync --remote <git URL or path>"),
        }
        println!(
            "last sync  {}",
            s.last_sync_at.as_deref().unwrap_or("never")
        );
        println!(
            "to send    {} entries, {} changes, {} commits ahead",
            s.unsent_entries, s.unsent_changes, s.ahead_commits
        );
        println!("behind     {} commits (as last fetched)", s.behind_commits);
        if !s.devices.is_empty() {
            let names: Vec<String> = s
                .devices
                .iter()
                .map(|(id, name)| format!("{name} ({id})"))
                .collect();
            println!("devices    {}", names.join(", "));
        }
        if let Some(a) = &s.last_arrival {
            println!("last in    {} ({})", a.sentence(), a.at);
        }
        print_conflicts(&s.conflicts);
        return Ok(ExitCode::SUCCESS);
    }
    let req = SyncRequest {
        remote: a.remote.clone(),
        owner: a.owner.clone(),
    };
    let done = elnor_engine::sync(store, &req, now)?;
    if json {
        output::json(&done)?;
        return Ok(ExitCode::SUCCESS);
    }
    match &done.offline {
        Some(why) => println!(
            "offline: committed here, sent with the next sync ({})",
            why.lines().next().unwrap_or("")
        ),
        None => println!("synced with {}", done.remote),
    }
    println!(
        "sent       {} entries, {} changes",
        done.sent_entries, done.sent_changes
    );
    match &done.arrival {
        None => println!("arrived    nothing new"),
        Some(a) => println!("arrived    {}", a.sentence()),
    }
    print_conflicts(&done.conflicts);
    Ok(ExitCode::SUCCESS)
}

fn print_conflicts(conflicts: &[elnor_engine::SyncConflict]) {
    if conflicts.is_empty() {
        return;
    }
    println!("conflicts  {} (the later write is kept)", conflicts.len());
    for c in conflicts {
        println!(
            "  {} {}: kept {:?} ({}), over {:?} ({})",
            c.subject, c.field, c.kept_value, c.kept_device, c.lost_value, c.lost_device
        );
    }
}
