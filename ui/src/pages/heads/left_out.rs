//! "Left out (N)": what did not fit under a head's cap, counted by kind and named by its first
//! few sources, with the reason in words. The head keeps its most important lines, so what is
//! here is what mattered least at this moment, never lost: it stays in the store.

use elnor_types::LeftOutRow;
use leptos::prelude::*;

use super::head::CiteChip;
use super::thousands;

#[component]
pub(super) fn LeftOutCard(left_out: Vec<LeftOutRow>, cap: u32) -> impl IntoView {
    let total: u64 = left_out.iter().map(|l| l.count).sum();
    let rows = left_out
        .into_iter()
        .map(|l| {
            let more = l.count.saturating_sub(l.ids.len() as u64);
            let chips = l
                .ids
                .into_iter()
                .map(|id| view! { <CiteChip id work_context_id=None /> })
                .collect_view();
            view! {
                <li class="left-out-kind" data-kind=l.kind data-count=l.count>
                    <span class="left-out-name">{format!("{}: {}", l.name, l.count)}</span>
                    " "
                    <span class="head-cites">{chips}</span>
                    {(more > 0).then(|| view! { <span class="meta">{format!(" and {more} more")}</span> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card left-out" id="heads-left-out" data-total=total>
            <h3>{format!("Left out ({total})")}</h3>
            <p class="hint">
                {format!(
                    "These lines did not fit under the cap of {} tokens; the most important lines \
                     were kept. Nothing is lost: each is still in the store, and the head names \
                     the first few so an agent can ask for them.",
                    thousands(u64::from(cap)),
                )}
            </p>
            <ul class="left-out-list">{rows}</ul>
        </section>
    }
}
