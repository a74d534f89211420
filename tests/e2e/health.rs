//! Health: a person who stopped using Codex while Claude Code carried on is told so, from Today's
//! alert through to the Health page, with the garbled line in one of Codex's files counted there;
//! a hook that is set up but never ran is called out with what to do, and OpenClaw's Dreaming is
//! turned off from the page with a backup, the rest of its hand-written config untouched.

use crate::harness::{App, Ui, ensure, ensure_eq};
use crate::world::{
    FUTURE_RECORD_TYPE, HAND_WRITTEN_OPENCLAW, UNEDITABLE_OPENCLAW, harness_settings_world,
    lost_turns_world, quiet_codex_world,
};

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

/// A transcript in a format no ELNOR reads is no silent loss (issue 41): Today raises it and
/// links to Health, where the file is named with the record type it could not read and the line
/// holding the first one, and the verdict counts it; the readable sources say what they read.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_file_whose_turns_could_not_be_read_is_named_on_today_and_the_health_page() {
    let (world, path) = lost_turns_world();
    App::with(&world, async |ui| {
        let alert = content(ui, "li.alert[data-kind='lost_turns']").await?;
        ensure!(
            alert.contains(&path) && alert.contains(FUTURE_RECORD_TYPE),
            "{alert}"
        );
        ui.click("li.alert[data-kind='lost_turns'] .alert-link")
            .await?;
        ui.find("#nav-health.active").await?;
        let row = content(
            ui,
            &format!("#health-lost-files li.health-lost-file[data-path='{path}']"),
        )
        .await?;
        ensure!(
            row.contains("4 records read, 0 turns of conversation")
                && row.contains(&format!("4 × \"{FUTURE_RECORD_TYPE}\" (first at line 1)")),
            "{row}"
        );
        let verdict = content(ui, "#health-verdict").await?;
        ensure!(
            verdict.contains("1 file whose turns ELNOR could not read"),
            "{verdict}"
        );
        let census = content(ui, "#health-claude-code .health-census").await?;
        ensure!(census.contains("of conversation"), "{census}");
        ui.screenshot("health-lost-turns").await;
        Ok(())
    })
    .await;
}

/// Photographs the end of the page (the Hooks card and Dreaming) at the widths the app must fit,
/// for the reviewer's eye (with `$ELNOR_E2E_SCREENSHOTS` set); the window is left at the widest.
async fn photograph(ui: &Ui, name: &str) -> crate::harness::Check {
    for width in [640, 1024, 1440] {
        ui.resize(width, 900).await?;
        // The window settles its new width after the resize answers: scroll once it has.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        ui.js("document.querySelector('#health-dreaming').scrollIntoView({block: 'end'})")
            .await?;
        ui.screenshot(&format!("{name}-{width}")).await;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_hook_that_never_ran_is_shown_and_dreaming_is_turned_off_from_the_health_page() {
    let (world, config) = harness_settings_world(HAND_WRITTEN_OPENCLAW);
    App::with(&world, async |ui| {
        // Today says Dreaming runs and links to the Health page.
        let link = "li.alert[data-kind='dreaming_on'] .alert-link";
        ui.find(link).await?;
        ui.click(link).await?;
        ui.find("#nav-health.active").await?;
        let verdict = content(ui, "#health-verdict").await?;
        ensure!(
            verdict.contains("1 hook set up but never run")
                && verdict.contains("OpenClaw's Dreaming is on"),
            "{verdict}"
        );

        // Claude Code: the start-of-session hook is in its settings but has never run, the
        // before-compaction one runs, the end-of-session one is not set up: the command that sets
        // it up follows.
        let claude = "#hooks-claude-code";
        let never = content(
            ui,
            &format!("{claude} li[data-event='SessionStart'][data-state='never_run']"),
        )
        .await?;
        ensure!(
            never.contains("The start-of-session hook is set up, but has never run.")
                && never.contains("Restart Claude Code"),
            "{never}"
        );
        let running = content(
            ui,
            &format!("{claude} li[data-event='PreCompact'][data-state='running']"),
        )
        .await?;
        ensure_eq!(
            running,
            "The before-compaction hook is set up and has run 14 times, last 2 hours ago."
        );
        let missing = content(
            ui,
            &format!("{claude} li[data-event='SessionEnd'][data-state='not_set_up']"),
        )
        .await?;
        ensure_eq!(missing, "The end-of-session hook is not set up.");
        let fix = content(ui, &format!("{claude} .hook-fix code")).await?;
        ensure_eq!(fix, "elnor setup claude-code");
        // Codex: nothing set up, said once with its own command.
        let codex = content(ui, "#hooks-codex [data-state='not_set_up'] code").await?;
        ensure_eq!(codex, "elnor setup codex");

        // Dreaming: on by OpenClaw's default, explained, with its switch.
        let card = "#health-dreaming[data-state='on']";
        let what = content(ui, &format!("{card} .dreaming-what")).await?;
        ensure!(
            what.contains("MEMORY.md") && what.contains("two memories"),
            "{what}"
        );
        photograph(ui, "health-hooks-dreaming").await?;
        ui.click("#dreaming-disable").await?;
        let confirm = content(ui, "#dreaming-confirm").await?;
        ensure!(
            confirm.contains(&config.display().to_string()) && confirm.contains("backup"),
            "{confirm}"
        );
        ui.screenshot("health-dreaming-confirm").await;
        ui.click("#dreaming-confirm-off").await?;

        // The page reads the report again: Dreaming is off, and the backup is named.
        ui.wait_gone("#dreaming-confirm").await?;
        ui.find("#health-dreaming[data-state='off']").await?;
        let backup = config.with_file_name("openclaw.json.elnor-backup-20261029T120000Z");
        let done = content(ui, "#dreaming-done").await?;
        ensure!(
            done.contains(&backup.display().to_string()),
            "{done} names no backup {}",
            backup.display()
        );
        let verdict = content(ui, "#health-verdict").await?;
        ensure!(!verdict.contains("Dreaming"), "{verdict}");

        // On disk: the backup is the file as it was, and the config now turns Dreaming off with
        // every hand-written line (the comments, the unrelated settings) kept byte for byte.
        ensure_eq!(
            std::fs::read_to_string(&backup)
                .map_err(|e| crate::harness::Failure::new(e.to_string()))?,
            HAND_WRITTEN_OPENCLAW
        );
        let now = std::fs::read_to_string(&config)
            .map_err(|e| crate::harness::Failure::new(e.to_string()))?;
        for line in HAND_WRITTEN_OPENCLAW.lines().filter(|l| *l != "}") {
            ensure!(now.contains(line), "{line:?} is gone from:\n{now}");
        }
        let bare: String = now
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '"')
            .collect();
        ensure!(
            bare.contains("memory-core:{config:{dreaming:{enabled:false}}}"),
            "{now}"
        );
        ui.click("#theme-dark").await?;
        photograph(ui, "health-dreaming-off-dark").await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_config_that_cannot_be_edited_safely_is_left_alone_with_the_line_to_add() {
    let (world, config) = harness_settings_world(UNEDITABLE_OPENCLAW);
    App::with(&world, async |ui| {
        ui.click("#nav-health").await?;
        ui.click("#health-dreaming[data-state='on'] #dreaming-disable")
            .await?;
        ui.click("#dreaming-confirm-off").await?;
        // The refusal stays in the dialog: why, that nothing was written, and the line to add.
        let error = content(ui, "#dreaming-error").await?;
        ensure!(
            error.contains("not an object") && error.contains("nothing was written"),
            "{error}"
        );
        let line = content(ui, "#dreaming-error .copy-text code").await?;
        ensure!(
            line.starts_with("plugins: {") && line.contains("enabled: false"),
            "{line}"
        );
        ui.screenshot("health-dreaming-refused").await;
        ensure_eq!(
            std::fs::read_to_string(&config)
                .map_err(|e| crate::harness::Failure::new(e.to_string()))?,
            UNEDITABLE_OPENCLAW
        );
        // Closing the dialog leaves Dreaming as it was.
        ui.click("#dreaming-cancel").await?;
        ui.wait_gone("#dreaming-confirm").await?;
        ui.find("#health-dreaming[data-state='on']").await?;
        Ok(())
    })
    .await;
}
