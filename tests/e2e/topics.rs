//! Topics: a membership a collection directive proposed, approved in Review and then shown in
//! the Topic's lens under Approved; and a Topic created from the Topics page's form.

use crate::harness::{App, ensure};
use crate::world::{TOPIC_NAME, TOPIC_WORDS, pending_memberships, topic_names, topics_world};

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
async fn creates_a_topic_from_the_form_and_collects_its_matches() {
    let (world, _) = topics_world(false);

    App::with(&world, async |ui| {
        ui.click("#nav-topics").await?;
        ui.find("#topics-empty").await?;
        ui.click("#topic-new").await?;
        ui.type_into("#topic-name", TOPIC_NAME).await?;
        ui.type_into("#topic-query", TOPIC_WORDS).await?;
        ui.click("#topic-collecting").await?;
        ui.click("#topic-create").await?;
        let note = ui
            .wait_text("#topics-note", |t| t.starts_with("Created"))
            .await?;
        ensure!(note.contains("3 proposal(s) in Review"), "{note}");
        let listed = ui
            .wait_text("#topics-list", |t| t.contains(TOPIC_NAME))
            .await?;
        ensure!(listed.contains("3 pending"), "{listed}");
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
