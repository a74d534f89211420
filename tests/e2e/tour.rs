//! Every page, at the widths people use, on a store of real history: nothing overflows
//! sideways, the sidebar stays in view, and no label shows the app's internals (a work
//! context's id, a seed document's section number, a config key). At 1440 px each page is
//! photographed (with `$ELNOR_E2E_SCREENSHOTS` set) for the person reviewing a change.

use crate::harness::{App, Check, Ui, ensure};
use crate::world::real_history_world;

/// The sidebar's buttons, each with the name its screenshot gets.
const PAGES: &[(&str, &str)] = &[
    ("#nav-home", "today"),
    ("#nav-sessions", "sessions"),
    ("#nav-contexts", "contexts"),
    ("#nav-review", "review"),
    ("#nav-knowledge", "knowledge"),
    ("#nav-heads", "heads"),
    ("#nav-timeline", "timeline"),
    ("#nav-search", "search"),
    ("#nav-library", "library"),
    ("#nav-topics", "topics"),
    ("#nav-inspector", "inspector"),
    ("#nav-health", "health"),
    ("#nav-reconstruct", "reconstruct"),
    ("#nav-settings", "settings"),
];

/// The widths the app must fit: its minimum window, a laptop's half screen, a laptop.
const WIDTHS: &[u32] = &[640, 1024, 1440];

/// What a page shows once its reads have settled: no loading note left.
async fn settled(ui: &Ui) -> Check {
    ui.wait_until("the page's reads to settle", async || {
        let busy = ui
            .js("return document.querySelectorAll('main p.hint, main span.hint').length > 0 \
                 && [...document.querySelectorAll('main .hint')].some(e => /^(Reading|Loading|Counting|Searching)/.test(e.textContent.trim()))")
            .await?;
        Ok((busy == serde_json::Value::Bool(false)).then_some(()))
    })
    .await
}

/// Elements that stick out of the window on the right without being inside something that
/// scrolls or clips them, described for the failure message; and whether the sidebar is
/// entirely in view and at least 160 px wide.
const LAYOUT: &str = r#"
const width = document.documentElement.clientWidth;
const clipped = (e) => {
  for (let p = e.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX;
    if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
  }
  return false;
};
const out = [];
for (const e of document.querySelectorAll('body *')) {
  const r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;
  if (r.right > width + 1 && !clipped(e)) {
    out.push(`${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')} right=${Math.round(r.right)}`);
  }
}
// The sidebar must stay whole in view however far the page is scrolled: scroll every
// scroller to its end before measuring it.
const sidebarWhole = () => {
  const side = document.querySelector('nav.sidebar').getBoundingClientRect();
  return side.left >= 0 && side.top <= 0 && side.bottom >= window.innerHeight - 1 && side.width >= 160;
};
const atTop = sidebarWhole();
window.scrollTo(0, document.documentElement.scrollHeight);
for (const e of document.querySelectorAll('main, main *')) {
  if (e.scrollHeight > e.clientHeight + 1) e.scrollTop = e.scrollHeight;
}
const atEnd = sidebarWhole();
window.scrollTo(0, 0);
for (const e of document.querySelectorAll('main, main *')) e.scrollTop = 0;
return {
  overflow: out.slice(0, 8),
  page: document.documentElement.scrollWidth > width + 1,
  sidebar: atTop && atEnd,
};
"#;

/// Words of the app's internals that a person should never read in a label.
const JARGON: &str = r#"
const text = document.body.innerText;
const found = [];
const id = text.match(/\bwc_[a-z0-9_]+/);
if (id) found.push(id[0]);
const section = text.match(/§\s*\d/);
if (section) found.push(section[0]);
// A config key as it is written, or turned into Title Case ("Min Dirty Turns").
for (const key of arguments[0]) {
  const title = key.split('_').map(w => w[0].toUpperCase() + w.slice(1)).join(' ');
  if (text.includes(key)) found.push(key);
  if (text.includes(title)) found.push(title);
}
return found;
"#;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn every_page_fits_every_width_without_internal_words() {
    let Some(world) = real_history_world() else {
        eprintln!("skipped: the real-history corpus is not beside this checkout");
        return;
    };
    let keys = crate::world::snake_case_config_keys();
    App::with(&world, async |ui| {
        for &width in WIDTHS {
            ui.resize(width, 900).await?;
            for &(button, name) in PAGES {
                ui.click(button).await?;
                settled(ui).await?;
                let layout = ui.js(LAYOUT).await?;
                ensure!(
                    layout["overflow"].as_array().is_some_and(|a| a.is_empty())
                        && layout["page"] == false,
                    "{name} at {width} px overflows: {layout}"
                );
                ensure!(
                    layout["sidebar"] == true,
                    "{name} at {width} px: the sidebar is not whole in view"
                );
                let jargon = ui.js_with(JARGON, serde_json::json!(keys)).await?;
                ensure!(
                    jargon.as_array().is_some_and(|a| a.is_empty()),
                    "{name} at {width} px shows internal words: {jargon}"
                );
                if width == 1440 {
                    ui.screenshot(&format!("page-{name}")).await;
                }
            }
        }
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_session_of_real_history_is_found_by_its_title() {
    let Some(world) = real_history_world() else {
        eprintln!("skipped: the real-history corpus is not beside this checkout");
        return;
    };
    let (session, title) =
        crate::world::titled_session(&world.store()).expect("a titled session in real history");
    // The first three words of the title, as a person remembers it.
    let typed: String = title
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    App::with(&world, async |ui| {
        ui.click("#nav-sessions").await?;
        ui.type_into("#filter-text", &typed).await?;
        let row = format!(".session-row[data-session-id='{session}']");
        ui.wait_until(format!("{row} to be listed for {typed:?}"), async || {
            Ok(ui.find_all(&row).await?.into_iter().next())
        })
        .await?;
        let shown = ui
            .js(&format!(
                "return document.querySelector(\"{row}\").textContent"
            ))
            .await?;
        ensure!(
            shown.as_str().is_some_and(|t| t.contains(&title)),
            "{row} shows {shown} for {title:?}"
        );
        ui.click(&row).await?;
        ui.find(&format!("{row}.active")).await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn todays_counts_agree_with_the_pages_they_link_to() {
    let world = crate::world::review_world();
    App::with(&world.world, async |ui| {
        // Proposals waiting: the Review page lists as many.
        let reviews = ui.find("#today-reviews").await?;
        let count: usize = reviews
            .attr("data-count")
            .await?
            .and_then(|c| c.parse().ok())
            .unwrap_or_default();
        ensure!(count > 0, "Today counts no proposals");
        reviews.click().await?;
        ui.wait_count("#review-list li.proposal-row[data-status='pending']", count)
            .await?;
        Ok(())
    })
    .await;
    // Projects found in a history: the Work contexts page lists as many under Projects.
    let (world, expected, _) = crate::world::first_run_world();
    App::with(&world, async |ui| {
        let projects = ui.find("#today-projects-count").await?;
        let count: usize = projects
            .attr("data-count")
            .await?
            .and_then(|c| c.parse().ok())
            .unwrap_or_default();
        ensure!(
            count == expected.len(),
            "Today counts {count} projects of {}",
            expected.len()
        );
        projects.click().await?;
        ui.wait_count(".context-row[data-origin='project']", count)
            .await?;
        Ok(())
    })
    .await;
}
