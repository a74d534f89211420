//! The store's summary: where it is, its schema, its counts and the continuity mode.

use elnor_types::StoreStatus;
use leptos::prelude::*;

#[component]
pub(super) fn StatusCard(status: StoreStatus) -> impl IntoView {
    let mode = status
        .mode
        .map(|m| m.label())
        .unwrap_or("unknown (config invalid)");
    let empty = status.entries_total == 0;
    view! {
        {status
            .config_error
            .clone()
            .map(|e| {
                view! {
                    <div class="error" id="status-config-error" role="alert">
                        <p>"The continuity config could not be read:"</p>
                        <p class="error-message">{e}</p>
                    </div>
                }
            })}
        <div class="card">
            <h3>"Store"</h3>
            <dl class="facts">
                <dt>"Location"</dt>
                <dd id="status-store-path">{status.store_path.clone()}</dd>
                <dt>"Graph schema version"</dt>
                <dd id="status-schema-version">{status.schema_version}</dd>
                <dt>"Continuity log schema"</dt>
                <dd>{status.log_schema_version}</dd>
                <dt>"Entities"</dt>
                <dd id="status-entities">{status.entities}</dd>
                <dt>"Work contexts"</dt>
                <dd id="status-work-contexts">{status.work_contexts}</dd>
                <dt>"Continuity mode"</dt>
                <dd id="status-mode">{mode}</dd>
            </dl>
        </div>
        <div class="card">
            <h3>"Continuity entries"</h3>
            <table class="counts">
                {status
                    .entries_by_type
                    .iter()
                    .map(|(kind, n)| {
                        let id = format!("count-{kind}");
                        let label = kind.replace('_', " ");
                        view! {
                            <tr>
                                <td>{label}</td>
                                <td class="n" id=id>{*n}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
                <tr>
                    <td>
                        <strong>"Total"</strong>
                    </td>
                    <td class="n" id="status-entries-total">
                        <strong>{status.entries_total}</strong>
                    </td>
                </tr>
            </table>
            {(status.skipped_lines > 0)
                .then(|| {
                    view! {
                        <p class="hint">
                            {status.skipped_lines}
                            " unreadable log lines were skipped and left in place."
                        </p>
                    }
                })}
            {empty
                .then(|| {
                    view! {
                        <p class="hint">
                            "Nothing captured yet. Entries appear here as agent sessions are captured; "
                            "to add one by hand, run "
                            <code>"elnor log append my-project open_question \"What next?\""</code>
                            "."
                        </p>
                    }
                })}
        </div>
    }
}
