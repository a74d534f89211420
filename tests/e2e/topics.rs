//! Topics: a membership a collection directive proposed, approved in Review and then shown in
//! the Topic's lens under Approved; a Topic created from the Topics page's "New topic" dialog,
//! which closes on creation and leaves the new Topic selected; a search hit pinned into a Topic
//! from the Search page's detail pane and found under Pinned; a Topic's words edited and
//! what matches its rules following; and a deletion that asks first.

use crate::harness::{App, ensure, ensure_eq};
use crate::world::{
    MemberSource, TOPIC_NAME, TOPIC_WORDS, add_topic, pending_memberships, topic_members,
    topic_names, topic_words, topics_world,
};

/// A second Topic beside the Topics world's sessions, whose words match only the atlas session.
const ATLAS_TOPIC: &str = "Atlas release";
const ATLAS_WORDS: &str = "atlas release";

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn approves_a_topic_membership_proposed_by_a_collection_directive() {
    let (world, topic) = topics_world(true);
    let topic = topic.expect("the world made a Topic");
    let proposed = pending_memberships(&world.store());

    App::with(&world, async |ui| {
        // The badge counts the membership proposals; Review lists them under their Topic.
        ui.wait_text("#nav-review-count", |t| t == proposed.to_string())
            .await?;
        ui.click("#nav-review").await?;
        let rows = ui
            .wait_count("#memberships-list li.membership-row", proposed)
            .await?;
        let first = &rows[0];
        let text = first.text().await?;
        ensure!(text.contains(TOPIC_NAME), "{text}");
        ensure!(text.contains(TOPIC_WORDS), "the directive's reason: {text}");
        let id = first.attr("data-membership-id").await?.unwrap_or_default();
        let label = ui
            .text(&format!(
                "li.membership-row[data-membership-id='{id}'] .membership-label"
            ))
            .await?;
        ensure!(
            text.contains(&label) && !label.is_empty(),
            "{label:?} in {text}"
        );
        ui.screenshot("review-memberships").await;

        // Approved: it leaves the queue, and the badge follows.
        ui.click(&format!(
            "li.membership-row[data-membership-id='{id}'] button.membership-approve"
        ))
        .await?;
        ui.wait_text("#memberships-note", |t| t.starts_with("Approved 1"))
            .await?;
        ui.wait_count("#memberships-list li.membership-row", proposed - 1)
            .await?;
        ui.wait_text("#nav-review-count", |t| t == (proposed - 1).to_string())
            .await?;

        // The Topic's lens shows it under Approved, saying why, and counts it in the list.
        ui.click("#nav-topics").await?;
        ui.click(&format!(
            "#topics-list li.topic-row[data-topic-id='{topic}']"
        ))
        .await?;
        let approved = ui
            .wait_text("#topic-members-approved", |t| t.contains(&label))
            .await?;
        ensure!(approved.contains("approved"), "{approved}");
        let counts = ui
            .text(&format!(
                "#topics-list li.topic-row[data-topic-id='{topic}']"
            ))
            .await?;
        ensure!(counts.contains("1 approved"), "{counts}");
        ensure!(
            counts.contains(&format!("{} pending", proposed - 1)),
            "{counts}"
        );
        ui.screenshot("topic-lens").await;
        Ok(())
    })
    .await;

    // On disk: one approved member, the rest still pending.
    assert_eq!(pending_memberships(&world.store()), proposed - 1);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn creates_a_topic_from_the_dialog_and_collects_its_matches() {
    let (world, _) = topics_world(false);

    App::with(&world, async |ui| {
        ui.click("#nav-topics").await?;
        ui.find("#topics-empty").await?;

        // The header's button opens the dialog with the cursor in the name; Esc closes it, and
        // so does its Close button.
        ui.click("#topic-new").await?;
        ui.find("#topic-form[role='dialog']").await?;
        ui.wait_until("the name to have the focus", async || {
            let focused = ui.focused().await?.attr("id").await?;
            Ok((focused.as_deref() == Some("topic-name")).then_some(()))
        })
        .await?;
        ui.keys("\u{E00C}").await?;
        ui.wait_gone("#topic-form").await?;
        ui.click("#topic-new").await?;
        ui.click("#topic-new-cancel").await?;
        ui.wait_gone("#topic-form").await?;

        ui.click("#topic-new").await?;
        ui.type_into("#topic-name", TOPIC_NAME).await?;
        ui.type_into("#topic-query", TOPIC_WORDS).await?;
        ui.click("#topic-collecting").await?;
        ui.screenshot("topic-new-dialog").await;
        ui.click("#topic-create").await?;

        // Created: the dialog closes, the note says what the directive proposed, and the new
        // Topic is the one selected and open.
        ui.wait_gone("#topic-form").await?;
        let note = ui
            .wait_text("#topics-note", |t| t.starts_with("Created"))
            .await?;
        ensure!(note.contains("3 proposal(s) in Review"), "{note}");
        let listed = ui
            .wait_text("#topics-list li.topic-row.active", |t| {
                t.contains(TOPIC_NAME)
            })
            .await?;
        ensure!(listed.contains("3 pending"), "{listed}");
        ui.wait_text("#topic-title", |t| t == TOPIC_NAME).await?;
        // Its lens shows the three sessions its words match, each saying why.
        let rule = ui
            .wait_text("#topic-members-rule", |t| t.contains("holds every word"))
            .await?;
        ensure!(rule.contains("ledger sync"), "{rule}");
        Ok(())
    })
    .await;

    assert_eq!(topic_names(&world.store()), [TOPIC_NAME]);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn pins_a_search_hit_into_a_topic_and_finds_it_under_pinned() {
    let (world, _) = topics_world(false);
    let topic = add_topic(&world.store(), ATLAS_TOPIC, ATLAS_WORDS);

    let doc = App::with(&world, async |ui| {
        // A ledger sync turn, which the Topic's own words do not match: the best hit, shown in
        // the detail pane.
        ui.click("#nav-search").await?;
        ui.type_into("#search-query", "smaller batches\u{E007}")
            .await?;
        let first = "#search-hits li.search-hit:first-child";
        ui.click(first).await?;
        let doc = ui
            .find(first)
            .await?
            .attr("data-doc-id")
            .await?
            .unwrap_or_default();
        ensure!(!doc.is_empty(), "the hit names its document");
        let this = format!("#search-detail[data-doc-id='{doc}']");
        let hit = ui
            .wait_text(&this, |t| t.contains("smaller batches"))
            .await?;
        ensure!(hit.contains("User turn"), "{hit}");

        // Pinned from its select, which says where it went and reads "Pin to Topic…" again.
        ui.select(&format!("{this} select.hit-pin-topic"), &topic)
            .await?;
        let said = ui.text(&format!("{this} .hit-pinned")).await?;
        ensure_eq!(said, format!("Pinned to {ATLAS_TOPIC}"));
        let select = ui.find(&format!("{this} select.hit-pin-topic")).await?;
        ensure_eq!(select.prop("value").await?.as_deref(), Some(""));
        ui.screenshot("search-pinned").await;

        // The Topic lists it under Pinned, saying why, and counts it.
        ui.click("#nav-topics").await?;
        ui.click(&format!(
            "#topics-list li.topic-row[data-topic-id='{topic}']"
        ))
        .await?;
        let member = format!("#topic-members-pinned li.topic-member[data-doc-id='{doc}']");
        let text = ui
            .wait_text(&member, |t| t.contains("smaller batches"))
            .await?;
        ensure!(text.contains("pinned"), "{text}");
        let counts = ui
            .text(&format!(
                "#topics-list li.topic-row[data-topic-id='{topic}']"
            ))
            .await?;
        ensure!(counts.contains("1 pinned"), "{counts}");
        ui.screenshot("topic-pinned").await;
        Ok(doc)
    })
    .await;

    // On disk: the one pinned member is that document.
    assert_eq!(
        topic_members(&world.store(), &topic, MemberSource::Pinned),
        [doc]
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn editing_a_topics_words_changes_what_matches_its_rules() {
    let (world, _) = topics_world(false);
    let topic = add_topic(&world.store(), ATLAS_TOPIC, ATLAS_WORDS);
    let before = topic_members(&world.store(), &topic, MemberSource::Rule);
    assert!(!before.is_empty(), "the atlas session matches");

    let shown = App::with(&world, async |ui| {
        ui.click("#nav-topics").await?;
        let rule = "#topic-members-rule";
        ui.wait_count(&format!("{rule} li.topic-member"), before.len())
            .await?;
        let text = ui.text(rule).await?;
        ensure!(text.contains("Draft the atlas release notes"), "{text}");

        // The form starts from the Topic as it is.
        ui.click("#topic-edit").await?;
        let name = ui.find("#topic-edit-name").await?;
        ensure_eq!(name.prop("value").await?.as_deref(), Some(ATLAS_TOPIC));
        let words = ui.find("#topic-edit-query").await?;
        ensure_eq!(words.prop("value").await?.as_deref(), Some(ATLAS_WORDS));
        words.clear().await?;
        words.send_keys(TOPIC_WORDS).await?;
        ui.type_into("#topic-edit-description", "The nightly sync")
            .await?;
        ui.click("#topic-edit-save").await?;

        // Its directive is off, so the note says it was saved and nothing more.
        let note = ui
            .wait_text("#topics-note", |t| t.starts_with("Saved"))
            .await?;
        ensure_eq!(note, format!("Saved “{ATLAS_TOPIC}”."));
        ui.wait_gone("#topic-edit-form").await?;
        let rules = ui.text("#topic-rules").await?;
        ensure!(rules.contains(TOPIC_WORDS), "{rules}");
        ui.wait_text(".topic-description", |t| t == "The nightly sync")
            .await?;
        // The three ledger sync sessions match now, and the atlas one no longer does.
        let text = ui
            .wait_text(rule, |t| {
                t.contains("smaller batches") && !t.contains("atlas release notes")
            })
            .await?;
        ensure!(text.contains("drops rows"), "{text}");
        let mut shown = Vec::new();
        for member in ui.find_all(&format!("{rule} li.topic-member")).await? {
            shown.push(member.attr("data-doc-id").await?.unwrap_or_default());
        }
        ui.screenshot("topic-edited").await;
        Ok(shown)
    })
    .await;

    // On disk: the new words, and the lens's rule members are the ones the page showed.
    let store = world.store();
    assert_eq!(topic_words(&store, &topic), TOPIC_WORDS);
    let mut after = topic_members(&store, &topic, MemberSource::Rule);
    let mut shown = shown;
    after.sort();
    shown.sort();
    assert_eq!(after, shown);
    assert!(after.iter().all(|d| !before.contains(d)), "{after:?}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn deleting_a_topic_asks_first() {
    let (world, _) = topics_world(false);
    add_topic(&world.store(), ATLAS_TOPIC, ATLAS_WORDS);

    App::with(&world, async |ui| {
        ui.click("#nav-topics").await?;
        ui.wait_text("#topic-title", |t| t == ATLAS_TOPIC).await?;

        // The first click only asks; "Keep it" keeps it.
        ui.click("#topic-delete").await?;
        let ask = ui.text("#topic-delete-ask").await?;
        ensure!(ask.contains(&format!("Delete “{ATLAS_TOPIC}”?")), "{ask}");
        ui.screenshot("topic-delete-ask").await;
        ui.click("#topic-delete-cancel").await?;
        ui.wait_gone("#topic-delete-ask").await?;
        ensure_eq!(ui.find_all("#topics-list li.topic-row").await?.len(), 1);

        // Asked again and confirmed, it goes.
        ui.click("#topic-delete").await?;
        ui.click("#topic-delete-confirm").await?;
        ui.wait_text("#topics-note", |t| t.starts_with("Topic deleted"))
            .await?;
        ui.find("#topics-empty").await?;
        Ok(())
    })
    .await;

    assert!(topic_names(&world.store()).is_empty());
}
