//! The desktop app's own figures for BENCHMARKS.md (issue 20): cold start to the first painted
//! frame and to an interactive Home, idle memory of the app with its WebKit processes, and how
//! long the Timeline, Sessions and Search pages take to show their rows.
//!
//! It runs on the captured samples, or on the store `$ELNOR_BENCH_STORE` names (a generated heavy
//! user, `scripts/bench-app.sh`), and prints the figures; it also fails when a page never shows
//! its rows, so `scripts/test.sh` runs it with the rest. Times are taken from the page through
//! WebDriver, polled every few milliseconds, from the moment the app's process started (its
//! start time in `/proc`). With `$ELNOR_BARE_BINARY` it then times the peer the same way: the
//! same Tauri runtime on an empty page (`src-tauri/examples/bare_window.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::{App, Check, Ui, ensure};
use crate::world::{World, captured_samples_world};

/// Milliseconds since the epoch, as the page's `Date.now()` counts them.
fn epoch_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

/// When process `pid` started, in milliseconds since the epoch: its start in clock ticks after
/// boot (`/proc/PID/stat`, field 22), and the boot time (`/proc/stat`, `btime`).
fn started_ms(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields are counted from after its closing paren.
    let after = &stat[stat.rfind(')')? + 2..];
    let ticks: f64 = after.split(' ').nth(19)?.parse().ok()?;
    let btime: f64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("btime ")?.trim().parse().ok())?;
    // Linux reports start times in USER_HZ, which is 100 on every platform it runs on today.
    Some((btime + ticks / 100.0) * 1000.0)
}

/// Every process and its parent, from `/proc`.
fn processes() -> Vec<(u32, u32, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_owned();
        let ppid = stat[close + 2..]
            .split(' ')
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        out.push((pid, ppid, name));
    }
    out
}

/// The newest process of the binary `file` names: the app (or the peer) this test started. The
/// kernel keeps the first 15 bytes of a process's name, so only those are compared.
fn newest_process(file: &Path) -> Option<u32> {
    let full = file.file_name()?.to_string_lossy().into_owned();
    let name: String = full.chars().take(15).collect();
    processes()
        .into_iter()
        .filter(|(_, _, n)| n.starts_with(&name))
        .max_by(|a, b| {
            started_ms(a.0)
                .unwrap_or(0.0)
                .total_cmp(&started_ms(b.0).unwrap_or(0.0))
        })
        .map(|(pid, ..)| pid)
}

/// Resident memory in MiB of `pid` and every process below it (WebKit's web and network
/// processes are the app's children), with their names.
fn rss_tree(pid: u32) -> (f64, Vec<String>) {
    let all = processes();
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            all.iter()
                .filter(|(_, pp, _)| *pp == parent)
                .map(|(p, ..)| *p),
        );
        i += 1;
    }
    let mut kib = 0.0;
    let mut names = Vec::new();
    for p in &tree {
        let status = std::fs::read_to_string(format!("/proc/{p}/status")).unwrap_or_default();
        if let Some(v) = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        {
            kib += v;
        }
        if let Some((.., name)) = all.iter().find(|(q, ..)| q == p) {
            names.push(name.clone());
        }
    }
    (kib / 1024.0, names)
}

/// The process of `binary` this test started, and when it started (epoch milliseconds).
fn started(binary: &Path) -> Check<(u32, f64)> {
    let pid = newest_process(binary);
    ensure!(pid.is_some(), "{} is running", binary.display());
    let pid = pid.unwrap();
    Ok((pid, started_ms(pid).unwrap_or_else(epoch_ms)))
}

/// [`rss_tree`] once nothing has been asked of the app for a few seconds.
async fn idle_rss(pid: u32) -> (f64, Vec<String>) {
    tokio::time::sleep(Duration::from_secs(5)).await;
    rss_tree(pid)
}

/// Polls `script` (which returns true once the page shows what is awaited) every 5 ms and
/// returns the epoch milliseconds at which it first held.
async fn when(ui: &Ui, what: &str, script: &str) -> Check<f64> {
    let started = Instant::now();
    loop {
        if ui.js(script).await?.as_bool() == Some(true) {
            return Ok(epoch_ms());
        }
        ensure!(
            started.elapsed() < Duration::from_secs(120),
            "waited two minutes for {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Clicks `nav` and returns how long, in milliseconds, until `rows` matches at least one
/// element.
async fn page(ui: &Ui, nav: &str, rows: &str) -> Check<f64> {
    let clicked = epoch_ms();
    ui.click(nav).await?;
    let shown = when(
        ui,
        rows,
        &format!("return document.querySelectorAll('{rows}').length > 0;"),
    )
    .await?;
    Ok(shown - clicked)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn app_start_and_page_figures() {
    let world = match std::env::var_os("ELNOR_BENCH_STORE").filter(|s| !s.is_empty()) {
        Some(store) => {
            let world = World::new();
            std::os::unix::fs::symlink(Path::new(&store), world.store_path()).unwrap();
            world
        }
        None => captured_samples_world(),
    };
    let figures = App::with(&world, async |ui| {
        let (pid, start) = started(&crate::harness::app_binary())?;
        let painted = when(
            ui,
            "the first frame",
            "return document.querySelector('#nav-home') !== null;",
        )
        .await?;
        let interactive = when(
            ui,
            "Home's counts",
            "const n = document.querySelector('#status-entries-total');
             return n !== null && n.textContent.trim() !== '';",
        )
        .await?;
        let (rss, names) = idle_rss(pid).await;
        let timeline = page(ui, "#nav-timeline", "#timeline-items li").await?;
        let sessions = page(ui, "#nav-sessions", ".session-row").await?;
        ui.click("#nav-search").await?;
        ui.type_into("#search-query", "the").await?;
        let asked = epoch_ms();
        ui.click("#search-submit").await?;
        let hits = when(
            ui,
            "search hits",
            "return document.querySelectorAll('#search-hits .search-hit').length > 0;",
        )
        .await?;
        Ok([
            ("cold start to the first frame (ms)", painted - start),
            (
                "cold start to an interactive Home (ms)",
                interactive - start,
            ),
            ("idle RSS, app and WebKit processes (MiB)", rss),
            ("processes", names.len() as f64),
            ("Timeline page to its rows (ms)", timeline),
            ("Sessions page to its rows (ms)", sessions),
            ("Search: submit to hits (ms)", hits - asked),
        ])
    })
    .await;
    for (what, value) in figures {
        println!("{what}: {value:.0}");
    }

    // The peer, in the same run: the same Tauri runtime and window on an empty page.
    let Some(bare) = std::env::var_os("ELNOR_BARE_BINARY").filter(|s| !s.is_empty()) else {
        println!(
            "peer not run: scripts/bench-app.sh builds the empty window and names it in ELNOR_BARE_BINARY"
        );
        return;
    };
    let bare = PathBuf::from(bare);
    let (painted, rss, processes) = App::with_binary(&world, &bare, async |ui| {
        let (pid, start) = started(&bare)?;
        let painted = when(
            ui,
            "the empty page",
            "return document.querySelector('#bare-ready') !== null;",
        )
        .await?;
        let (rss, names) = idle_rss(pid).await;
        Ok((painted - start, rss, names.len()))
    })
    .await;
    println!("peer, an empty Tauri window: cold start to the first frame (ms): {painted:.0}");
    println!("peer: idle RSS, app and WebKit processes (MiB): {rss:.0}");
    println!("peer: processes: {processes}");
    println!(
        "app against the peer: first frame {:.2}×, idle RSS {:.2}×",
        figures[0].1 / painted,
        figures[2].1 / rss
    );
}
