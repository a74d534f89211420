//! What holds on every page (issue 17's "Everywhere"): the colour theme chosen in the sidebar,
//! remembered across pages; the app-wide keys (`g` then a letter, `/`, `j`/`k`, `Enter`, `Esc`);
//! and the Work contexts page's "New work context" dialog, which replaced the form above the list.

use crate::harness::{App, Ui, ensure, ensure_eq};
use crate::world::{first_run_world, long_name_world};

/// WebDriver's code for the Enter key.
const ENTER: &str = "\u{e007}";
/// WebDriver's code for the Escape key.
const ESCAPE: &str = "\u{e00c}";

/// The page's computed background colour, as the person sees it.
async fn background(ui: &Ui) -> crate::harness::Check<String> {
    let bg = ui
        .js("return getComputedStyle(document.body).backgroundColor")
        .await?;
    Ok(bg.as_str().unwrap_or_default().to_owned())
}

/// The id of the element that has the keyboard.
async fn focused_id(ui: &Ui) -> crate::harness::Check<String> {
    Ok(ui.focused().await?.attr("id").await?.unwrap_or_default())
}

/// The sidebar's switch turns the app dark at once, and it stays dark on the next page and
/// after the app is loaded again (the choice is remembered); Light turns it back.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn the_dark_theme_is_chosen_in_the_sidebar_and_survives_a_page_change() {
    let (world, _, _) = first_run_world();
    App::with(&world, async |ui| {
        ui.find("#theme-switch").await?;
        ui.click("#theme-light").await?;
        let light = background(ui).await?;
        ui.click("#theme-dark").await?;
        let theme = ui
            .js("return document.documentElement.dataset.theme")
            .await?;
        ensure_eq!(theme, "dark");
        let dark = background(ui).await?;
        ensure!(dark != light, "the background stayed {light}");
        ui.screenshot("dark-home").await;

        ui.click("#nav-sessions").await?;
        ui.find("#nav-sessions.active").await?;
        ensure_eq!(background(ui).await?, dark, "the next page is dark too");
        ui.find("#theme-dark.active").await?;
        let stored = ui.js("return localStorage.getItem('elnor.theme')").await?;
        ensure_eq!(stored, "dark");
        ui.screenshot("dark-sessions").await;

        ui.click("#theme-light").await?;
        ensure_eq!(background(ui).await?, light);
        Ok(())
    })
    .await;
}

/// `g` then `s` opens Sessions, `/` puts the keyboard in its filter, Esc leaves it, and `j` then
/// `Enter` open the first session's transcript; `g` then `w` opens Work contexts.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn the_keyboard_moves_between_pages_and_opens_a_session() {
    let (world, _, _) = first_run_world();
    App::with(&world, async |ui| {
        ui.find("#nav-home.active").await?;
        ui.keys("gs").await?;
        ui.find("#nav-sessions.active").await?;
        ui.find(".session-row").await?;

        ui.keys("/").await?;
        ensure_eq!(focused_id(ui).await?, "filter-text");
        // Letters typed in the filter are words, not shortcuts.
        ui.focused().await?.send_keys("gwzq").await?;
        ui.find("#nav-sessions.active").await?;
        // A filter that matches nothing says so, rather than claiming there are no sessions.
        let empty = ui
            .wait_text("#sessions-empty", |t| t.contains("match"))
            .await?;
        ensure!(empty.contains("No sessions match these filters"), "{empty}");
        ui.focused().await?.send_keys(ESCAPE).await?;
        ui.wait_until("the filter to be cleared", async || {
            let v = ui
                .js("return document.querySelector('#filter-text').value")
                .await?;
            Ok((v == "").then_some(()))
        })
        .await?;

        ui.keys("j").await?;
        let row = ui.focused().await?;
        ensure_eq!(
            row.attr("class")
                .await?
                .unwrap_or_default()
                .split(' ')
                .next(),
            Some("session-row")
        );
        let session = row.attr("data-session-id").await?.unwrap_or_default();
        row.send_keys(ENTER).await?;
        ui.find(&format!(".session-row.active[data-session-id='{session}']"))
            .await?;
        let total = ui.wait_text("#viewer-total", |t| !t.is_empty()).await?;
        ensure!(total.ends_with(" turns"), "{total}");

        ui.keys("gw").await?;
        ui.find("#nav-contexts.active").await?;
        ui.keys("?").await?;
        let help = ui.text("#keys-help").await?;
        ensure!(help.contains("Work contexts"), "{help}");
        ui.keys(ESCAPE).await?;
        ui.wait_gone("#keys-help").await?;
        Ok(())
    })
    .await;
}

/// The "New work context" button opens a dialog; creating there closes it, selects the new
/// context in the list (under Named) and says so.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_work_context_is_created_in_the_new_work_context_dialog() {
    let (world, _, _) = first_run_world();
    App::with(&world, async |ui| {
        ui.click("#nav-contexts").await?;
        ui.find(".context-row").await?;
        ensure!(ui.find_all("#wc-new-dialog").await?.is_empty());
        ui.click("#wc-new").await?;
        ui.find("#wc-new-dialog").await?;
        ensure_eq!(focused_id(ui).await?, "wc-name");
        ui.type_into("#wc-name", "Morning standup").await?;
        ui.click("#wc-create").await?;
        ui.wait_gone("#wc-new-dialog").await?;
        ensure_eq!(ui.text("#wc-created").await?, "Created Morning standup.");
        ui.find(".context-row.active[data-origin='named']").await?;
        // textContent, not WebDriver's rendered text, which reads an ellipsised line as empty.
        let row = ui
            .js("return document.querySelector('.context-row.active').textContent")
            .await?;
        let row = row.as_str().unwrap_or_default().to_owned();
        ensure!(row.contains("Morning standup"), "{row}");
        ensure!(!row.contains("wc_"), "{row}");
        ui.wait_text("#wc-detail", |t| t.contains("Morning standup"))
            .await?;
        // Esc closes the dialog without creating anything.
        ui.click("#wc-new").await?;
        ui.find("#wc-new-dialog").await?;
        ui.focused().await?.send_keys(ESCAPE).await?;
        ui.wait_gone("#wc-new-dialog").await?;
        Ok(())
    })
    .await;
}

/// At the 640 px minimum width a long work context name is cut with an ellipsis (whole in its
/// `title`) in the list, and the push dialog's context choice stays inside the dialog.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn long_names_fit_the_list_and_the_push_dialog_at_the_narrowest_window() {
    let (world, long) = long_name_world();
    App::with(&world, async |ui| {
        ui.resize(640, 800).await?;
        ui.click("#nav-contexts").await?;
        ui.find(".context-row strong").await?;
        let mut titles = Vec::new();
        for name in ui.find_all(".context-row strong").await? {
            titles.push(name.attr("title").await?.unwrap_or_default());
        }
        ensure!(titles.contains(&long), "{titles:?}");
        let fits = ui
            .js("const e = [...document.querySelectorAll('.context-row strong')] \
                   .sort((a, b) => b.title.length - a.title.length)[0]; \
                 const r = e.getBoundingClientRect(), p = e.closest('.context-row').getBoundingClientRect(); \
                 return getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth \
                   && r.right <= p.right + 1 && p.right <= document.documentElement.clientWidth")
            .await?;
        ensure_eq!(fits, true, "the long name is ellipsised inside its row");

        ui.click("#nav-push").await?;
        ui.find("#push-dialog-context option[value]").await?;
        let inside = ui
            .js("const d = document.querySelector('[role=dialog]').getBoundingClientRect(); \
                 const s = document.querySelector('[role=dialog] select').getBoundingClientRect(); \
                 return s.right <= d.right + 1 && d.right <= document.documentElement.clientWidth")
            .await?;
        ensure_eq!(inside, true, "the context choice stays inside the dialog");
        ui.screenshot("push-dialog-640").await;
        Ok(())
    })
    .await;
}
