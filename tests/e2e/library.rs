//! Library: a collection's documents narrowed to a folder, one opened from the list, rendered,
//! with the session that names it under "Referred to by", and that session opened in its
//! transcript at the turn; and a folder added from the header's "Add folder" dialog, which keeps
//! a refusal in the dialog and, on success, closes and shows the new collection's documents.

use crate::harness::{App, ensure, ensure_eq};
use crate::world::{PLAN_HEADING, PLAN_RELATIVE, library_world};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn opens_a_library_document_and_sees_who_refers_to_it() {
    let (world, target) = library_world();

    App::with(&world, async |ui| {
        ui.click("#nav-library").await?;
        // The collection the world added, with its two documents.
        let chips = ui
            .wait_text("#library-collections", |t| t.contains("work (2)"))
            .await?;
        ensure!(chips.contains("All collections"), "{chips}");
        ui.wait_count("#library-documents li.document-row", 2)
            .await?;

        // The folder filter offers the collection's one folder; choosing it leaves its document.
        ui.select("#library-folder", "notes").await?;
        let rows = ui
            .wait_count("#library-documents li.document-row", 1)
            .await?;
        ensure_eq!(
            rows[0].attr("data-relative").await?.as_deref(),
            Some(PLAN_RELATIVE)
        );

        // The document, listed by its title from the frontmatter, opens rendered.
        let row = format!("#library-documents li.document-row[data-relative='{PLAN_RELATIVE}']");
        let listed = ui.text(&row).await?;
        ensure!(listed.contains("Atlas plan"), "{listed}");
        ui.click(&row).await?;
        ui.find(&format!("#library-document[data-path='{}']", target.path))
            .await?;
        let heading = ui.text("#library-body h1").await?;
        ensure!(heading == PLAN_HEADING, "{heading}");
        let frontmatter = ui.text("#library-frontmatter").await?;
        ensure!(frontmatter.contains("ann"), "{frontmatter}");

        // Referred to by the session whose turn names it by its path in the folder.
        let refs = ui.text("#library-refs").await?;
        ensure!(refs.contains(PLAN_RELATIVE), "{refs}");
        let link = format!(
            "#library-ref-sessions a.ref-session[data-session-id='{}']",
            target.session
        );
        let said = ui.text(&link).await?;
        ensure!(said.contains("1 turn names it"), "{said}");
        ui.screenshot("library-document").await;

        // It opens the transcript at that turn, selected and read in full.
        ui.click(&link).await?;
        ui.find(&format!(
            ".session-row.active[data-session-id='{}']",
            target.session
        ))
        .await?;
        ui.find(&format!(
            ".turn-row.selected[data-turn-id='{}']",
            target.turn_id
        ))
        .await?;
        ui.wait_text(".turn-detail", |t| t.contains("tighten the milestones"))
            .await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn adds_a_folder_from_the_header_dialog() {
    let (world, _) = library_world();
    let more = world.path("ideas");
    std::fs::create_dir_all(&more).unwrap();
    std::fs::write(
        more.join("garden.md"),
        "# Garden\n\nPlant the beans in May.\n",
    )
    .unwrap();
    let missing = world.path("nowhere");

    App::with(&world, async |ui| {
        ui.click("#nav-library").await?;
        ui.wait_text("#library-collections", |t| t.contains("work (2)"))
            .await?;

        // The button in the header opens the dialog with the cursor in the path; Esc closes it.
        ui.click("#library-add-open").await?;
        ui.find("#library-add-form[role='dialog']").await?;
        ui.wait_until("the path to have the focus", async || {
            let focused = ui.focused().await?.attr("id").await?;
            Ok((focused.as_deref() == Some("library-add-path")).then_some(()))
        })
        .await?;
        ui.keys("\u{E00C}").await?;
        ui.wait_gone("#library-add-form").await?;

        // A folder that is not there is refused inside the dialog, which stays open.
        ui.click("#library-add-open").await?;
        ui.type_into("#library-add-path", &missing.to_string_lossy())
            .await?;
        ui.click("#library-add").await?;
        ui.find("#library-add-form #library-add-error").await?;
        ui.screenshot("library-add-dialog").await;

        // A real one, sent with Enter: the dialog closes, the header says what came, and the
        // list shows the new collection, chosen.
        let path = ui.find("#library-add-path").await?;
        path.clear().await?;
        path.send_keys(&format!("{}\u{E007}", more.to_string_lossy()))
            .await?;
        ui.wait_gone("#library-add-form").await?;
        let said = ui.wait_text("#library-added", |t| !t.is_empty()).await?;
        ensure_eq!(said, "Added ideas (1 documents).");
        ui.wait_text("#library-collections .collection-chip.on", |t| {
            t.contains("ideas (1)")
        })
        .await?;
        let rows = ui
            .wait_count("#library-documents li.document-row", 1)
            .await?;
        ensure_eq!(
            rows[0].attr("data-relative").await?.as_deref(),
            Some("garden.md")
        );
        Ok(())
    })
    .await;
}
