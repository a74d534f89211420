//! Health: a person who stopped using Codex while Claude Code carried on is told so, from Today's
//! alert through to the Health page, with the garbled line in one of Codex's files counted there.

use crate::harness::{App, Ui, ensure, ensure_eq};
use crate::world::quiet_codex_world;

/// The text of the first element matching `css`, read from the page itself: WebDriver's own
/// text is empty for parts of the page it thinks are cut off.
async fn content(ui: &Ui, css: &str) -> crate::harness::Check<String> {
    ui.find(css).await?;
    let text = ui
        .js_with(
            "return document.querySelector(arguments[0]).textContent",
            serde_json::json!(css),
        )
        .await?;
    Ok(text.as_str().unwrap_or_default().to_owned())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_silent_agent_and_an_unreadable_line_are_shown_on_the_health_page() {
    let world = quiet_codex_world();
    App::with(&world, async |ui| {
        // Today says Codex went quiet and links to the Health page.
        let link = "li.alert[data-kind='harness_quiet'] .alert-link";
        ui.find(link).await?;
        ui.screenshot("health-today-alert").await;
        ui.click(link).await?;
        ui.find("#nav-health.active").await?;

        // Codex: five daily sessions, then nothing for 24 days.
        let codex = "#health-codex[data-silent='true']";
        let silence = content(ui, &format!("{codex} .health-silent")).await?;
        ensure!(
            silence.contains("No new Codex sessions for 24 days; it usually records one every day")
                && silence.contains("Is it still being captured?"),
            "{silence}"
        );
        let activity = content(ui, &format!("{codex} .health-activity")).await?;
        ensure!(
            activity.contains("No sessions this week") && activity.contains("every day"),
            "{activity}"
        );
        // The garbled line is counted against the Codex folder, and only there.
        let problem = content(ui, &format!("{codex} li.health-source[data-problems='1']")).await?;
        ensure!(
            problem.contains("5 files") && problem.contains("1 line could not be read"),
            "{problem}"
        );

        // Claude Code carried on: not silent, its session yesterday counted.
        let claude = "#health-claude-code[data-silent='false']";
        let activity = content(ui, &format!("{claude} .health-activity")).await?;
        ensure!(
            activity.contains("1 session this week")
                && activity.contains("last session 21 hours ago"),
            "{activity}"
        );
        ensure_eq!(ui.find_all(".health-silent").await?.len(), 1);
        let verdict = content(ui, "#health-verdict").await?;
        ensure!(verdict.contains("1 agent quiet"), "{verdict}");
        ui.screenshot("health-quiet-codex").await;
        // The same page in the dark theme at the narrowest window, for the reviewer's eye (the
        // tour checks every page at every width for overflow).
        ui.click("#theme-dark").await?;
        ui.resize(640, 900).await?;
        ui.screenshot("health-quiet-codex-dark-640").await;
        Ok(())
    })
    .await;
}
