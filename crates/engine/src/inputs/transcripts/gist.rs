//! The gist of an agent's report in a few hundred characters (issue 37): the sentences and list
//! items that name what was done, kept in the report's order.
//!
//! An agent's last message is its report: "Done. I changed X in `a.rs` …", a list of changes,
//! next steps. Its first characters are often the least of it ("Great — here's what I did:"),
//! so a card that cuts the message at its length keeps the greeting and loses the files. The
//! gist keeps the lead sentence, then the units that name the most specific things (file
//! names, paths, identifiers, numbers, code the agent marked as such), each item under the
//! heading it was listed under ("Next steps: run the tests"). Everything it keeps is the
//! agent's own words, so a line built from it is explained by the message it quotes.

use crate::base::tokens::one_line;

/// One sentence or list item of a report.
#[derive(Debug, Clone)]
struct Unit {
    text: String,
    /// The heading it was listed under ("Next steps"), when the report had one.
    heading: Option<usize>,
    /// How many specific things it names.
    specific: usize,
    /// Where it is in the report: the first unit is the lead.
    at: usize,
}

/// At most `max_chars` characters of `report`: its lead, then its most specific sentences and
/// items, in the report's order; a report that fits is only put on one line.
pub fn gist(report: &str, max_chars: usize) -> String {
    Gist::of(report).within(max_chars)
}

/// A report read once into its units, for gists of several lengths (a card is fitted to its
/// room by trying a few).
#[derive(Debug)]
pub struct Gist {
    whole: String,
    flat_chars: usize,
    units: Vec<Unit>,
    headings: Vec<String>,
}

impl Gist {
    pub fn of(report: &str) -> Gist {
        let (units, headings) = units(report);
        Gist {
            flat_chars: one_line(report).chars().count(),
            whole: report.to_owned(),
            units,
            headings,
        }
    }

    /// The report without the units `shown` already quotes (a card above it has its lead), its
    /// first unit left the lead; `None` when it quotes them all, or when a report of no units
    /// (all heading) is quoted whole.
    pub fn beside(self, shown: &str) -> Option<Gist> {
        // A unit of a few letters ("OK") would be found inside any word; only a phrase is a
        // quote of it.
        let quoted = |u: &Unit| {
            let text = u.text.trim_end_matches([';', ',', '.']);
            text.chars().count() >= 8 && shown.contains(text)
        };
        if self.units.is_empty() {
            // A report that is all heading ("Now I commit:") has no units; the card may still
            // quote it whole.
            let whole = one_line(&self.whole);
            let whole = whole.trim_end_matches([';', ',', '.', ':', '：']);
            let on_card = whole.chars().count() >= 8 && shown.contains(whole);
            return (!on_card).then_some(self);
        }
        if !self.units.iter().any(quoted) {
            return Some(self);
        }
        let units: Vec<Unit> = self
            .units
            .iter()
            .filter(|u| !quoted(u))
            .enumerate()
            .map(|(at, u)| Unit { at, ..u.clone() })
            .collect();
        if units.is_empty() {
            return None;
        }
        let all: Vec<usize> = (0..units.len()).collect();
        let whole = render(&units, &self.headings, &all);
        Some(Gist {
            flat_chars: whole.chars().count(),
            whole,
            units,
            headings: self.headings,
        })
    }

    /// The gist in at most `max_chars` characters, as [`gist`] says.
    pub fn within(&self, max_chars: usize) -> String {
        if self.flat_chars <= max_chars {
            return one_line(&self.whole);
        }
        let chosen = choose(&self.units, &self.headings, max_chars);
        if chosen.is_empty() {
            return crate::base::tokens::condense(&self.whole, max_chars);
        }
        render(&self.units, &self.headings, &chosen)
    }
}

/// The report cut into units: each line's sentences, list markers and emphasis taken off; a
/// line that heads a list ("**Changes:**", "## Next steps") is a heading for the lines below.
fn units(report: &str) -> (Vec<Unit>, Vec<String>) {
    let mut units = Vec::new();
    let mut headings: Vec<String> = Vec::new();
    let mut heading = None;
    for raw in report.lines() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let (bare, listed) = unlisted(line);
        let plain = plain(bare);
        if plain.chars().all(|c| !c.is_alphanumeric()) {
            continue;
        }
        if is_heading(line, bare, &plain) {
            headings.push(plain.trim_end_matches([':', '：']).trim().to_owned());
            heading = Some(headings.len() - 1);
            continue;
        }
        // A paragraph after a list leaves the heading; an item stays under it.
        if !listed && raw.starts_with(|c: char| !c.is_whitespace()) {
            heading = None;
        }
        for sentence in sentences(bare) {
            let text = plain_trimmed(&sentence);
            if text.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
                continue;
            }
            units.push(Unit {
                specific: specific_terms(&sentence),
                text,
                heading,
                at: units.len(),
            });
        }
    }
    (units, headings)
}

/// The line without a list marker ("- ", "* ", "1. ", "2) "), and whether it had one.
fn unlisted(line: &str) -> (&str, bool) {
    for marker in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return (rest.trim_start(), true);
        }
    }
    let digits = line.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && digits <= 3 {
        let rest = &line[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return (rest.trim_start(), true);
        }
    }
    (line, false)
}

/// Whether a line heads what follows: a markdown heading, a line wholly in bold, or a short
/// line ending in a colon.
fn is_heading(line: &str, bare: &str, plain: &str) -> bool {
    if line.starts_with('#') {
        return true;
    }
    let words = plain.split_whitespace().count();
    let bold = (bare.starts_with("**") && bare.trim_end_matches([':', '：']).ends_with("**"))
        || (bare.starts_with("__") && bare.trim_end_matches([':', '：']).ends_with("__"));
    (bold && words <= 8)
        || (plain.ends_with([':', '：']) && words <= 6 && plain.chars().count() <= 60)
}

/// The line's sentences: cut after ". ", "! ", "? " and the CJK full stops, never inside a
/// code span (`a.rs` stays one word).
fn sentences(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_code = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        if c == '`' {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let ends = match c {
            '。' | '！' | '？' => true,
            '.' | '!' | '?' => chars.peek().is_none_or(|n| n.is_whitespace()),
            _ => false,
        };
        if ends && current.trim().chars().count() > 1 {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

/// Emphasis and code marks taken off, on one line.
fn plain(text: &str) -> String {
    let stripped: String = text
        .replace("**", "")
        .replace("__", "")
        .chars()
        .filter(|c| *c != '`')
        .collect();
    let stripped = stripped.trim_start_matches('#').trim();
    one_line(stripped)
}

fn plain_trimmed(text: &str) -> String {
    plain(text).trim().to_owned()
}

/// How many distinct specific things a unit names: code the agent marked, and words that are
/// names rather than prose (a path or file name, an identifier with an underscore or inner
/// capital, a word with digits, an acronym).
fn specific_terms(unit: &str) -> usize {
    let mut seen: Vec<String> = Vec::new();
    for (i, span) in unit.split('`').enumerate() {
        // Odd spans are inside a pair of backticks: code the agent marked as such.
        if i % 2 == 1 {
            let s = span.trim();
            if !s.is_empty() && !seen.iter().any(|x| x == s) {
                seen.push(s.to_owned());
            }
            continue;
        }
        for word in span.split(|c: char| c.is_whitespace() || "(),;\"'*[]".contains(c)) {
            let w = word.trim_matches(|c: char| !c.is_alphanumeric());
            if is_name(w) && !seen.iter().any(|x| x == w) {
                seen.push(w.to_owned());
            }
        }
    }
    seen.len()
}

/// Whether a word is a name: a path or file name, an identifier, a number with letters, an
/// acronym.
fn is_name(w: &str) -> bool {
    let letters = w.chars().filter(|c| c.is_alphabetic()).count();
    if letters == 0 || w.chars().count() < 2 {
        return false;
    }
    let inner = &w[w.char_indices().nth(1).map_or(w.len(), |(i, _)| i)..];
    let joined = w.contains(['/', '\\', '_', '.', ':', '=']) || inner.contains('-');
    let digits = w.chars().any(|c| c.is_ascii_digit());
    let inner_capital =
        inner.chars().any(|c| c.is_uppercase()) && w.chars().any(|c| c.is_lowercase());
    let acronym = letters >= 2 && w.chars().all(|c| c.is_uppercase() || c.is_ascii_digit());
    joined || digits || inner_capital || acronym
}

/// The units kept within `max_chars`: the lead first, then the most specific, earlier first
/// among equals (so what is left of the room goes to the report's first sentences); a unit
/// that does not fit is passed over for shorter ones.
fn choose(units: &[Unit], headings: &[String], max_chars: usize) -> Vec<usize> {
    let mut order: Vec<&Unit> = units.iter().collect();
    order.sort_by_key(|u| (u.at != 0, std::cmp::Reverse(u.specific), u.at));
    let mut chosen: Vec<usize> = Vec::new();
    for u in order {
        let at = chosen.partition_point(|&c| c < u.at);
        chosen.insert(at, u.at);
        if rendered_len(units, headings, &chosen) > max_chars {
            chosen.remove(at);
        }
    }
    chosen
}

/// The length in characters of what [`render`] makes of `chosen`, counted without making it
/// (a gist is asked for many rooms; rendering each trial was most of its cost).
fn rendered_len(units: &[Unit], headings: &[String], chosen: &[usize]) -> usize {
    let mut len = 0;
    let mut open_heading: Option<usize> = None;
    let mut ends_a_sentence = true;
    for (n, &i) in chosen.iter().enumerate() {
        let u = &units[i];
        if u.heading.is_some() && u.heading == open_heading {
            len += 2;
        } else {
            if n > 0 {
                len += if ends_a_sentence { 1 } else { 2 };
            }
            if let Some(h) = u.heading {
                len += headings[h].chars().count() + 2;
            }
        }
        open_heading = u.heading;
        let text = u.text.trim_end_matches([';', ',']);
        len += text.chars().count();
        ends_a_sentence = text.ends_with(['.', '!', '?', '。', '！', '？', ':', '：']);
    }
    len
}

/// The chosen units in the report's order: items under one heading joined by "; " after it,
/// sentences by a space.
fn render(units: &[Unit], headings: &[String], chosen: &[usize]) -> String {
    let mut out = String::new();
    let mut open_heading: Option<usize> = None;
    for &i in chosen {
        let u = &units[i];
        if u.heading.is_some() && u.heading == open_heading {
            out.push_str("; ");
        } else {
            if !out.is_empty() {
                if !out.ends_with(['.', '!', '?', '。', '！', '？', ':', '：']) {
                    out.push('.');
                }
                out.push(' ');
            }
            if let Some(h) = u.heading {
                out.push_str(&headings[h]);
                out.push_str(": ");
            }
        }
        open_heading = u.heading;
        out.push_str(u.text.trim_end_matches([';', ',']));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::gist;

    #[test]
    fn a_short_report_is_only_put_on_one_line() {
        assert_eq!(
            gist("Done.\n\nAll tests pass.", 100),
            "Done. All tests pass."
        );
    }

    #[test]
    fn the_lead_and_the_items_naming_files_are_kept_under_their_heading() {
        let report = "Great — here's a summary of what I did for you today, in some detail.\n\n\
            **Changes:**\n\
            - Reworked the overall approach to make things a lot nicer for everyone\n\
            - `src/auth.rs`: token refresh now retries on HTTP 401\n\
            - Added `refresh_test.rs` covering the retry\n\n\
            ## Next steps\n\
            1. Run the whole suite against staging when you have a moment to do so\n\
            2. Deploy with `make release`\n";
        let g = gist(report, 240);
        assert!(g.starts_with("Great — here's a summary"), "{g}");
        assert!(
            g.contains("Changes: src/auth.rs: token refresh now retries on HTTP 401"),
            "{g}"
        );
        assert!(g.contains("Next steps: Deploy with make release"), "{g}");
        assert!(!g.contains("nicer for everyone"), "{g}");
        assert!(g.chars().count() <= 240);
    }

    #[test]
    fn sentences_split_outside_code_and_in_cjk() {
        let g = gist(
            "我已经完成了任务。文件保存在 `out/VLM_Overview.pptx`。其他的都没有变化，请放心。",
            40,
        );
        assert!(g.contains("out/VLM_Overview.pptx"), "{g}");
        assert!(g.chars().count() <= 40, "{g}");
    }

    #[test]
    fn the_length_counted_is_the_length_rendered() {
        let report = "Done!\n\n**Changes:**\n- `a.rs`: one\n- `b.rs`: two;\n\nNo heading here\n\
            ## Next\n1. Run `make`\n2. Ship it\n";
        let (units, headings) = super::units(report);
        let all: Vec<usize> = (0..units.len()).collect();
        for skip in 0..units.len() {
            let chosen: Vec<usize> = all.iter().copied().filter(|&i| i != skip).collect();
            assert_eq!(
                super::rendered_len(&units, &headings, &chosen),
                super::render(&units, &headings, &chosen).chars().count()
            );
        }
    }

    #[test]
    fn beside_a_card_that_quotes_the_lead_the_rest_is_the_gist() {
        let report = "Fixed the crash at start.\n\n- `main.rs`: the X11 plugin is forced\n\
            - `run.sh` wraps the launch";
        let card = "Last (Mon): \"fix it\" → Fixed the crash at start. Changed: main.rs.";
        let g = super::Gist::of(report)
            .beside(card)
            .expect("two units are not on the card");
        assert_eq!(
            g.within(200),
            "main.rs: the X11 plugin is forced. run.sh wraps the launch"
        );
        // A report that is only a heading has no units: quoted whole, it is not quoted again.
        let lead = super::Gist::of("让我提交 commit：");
        assert!(lead.units.is_empty());
        assert!(lead.beside("→ 让我提交 commit：. Changed: a.md.").is_none());
        assert!(super::Gist::of("让我提交 commit：").beside(card).is_some());
        let all = format!("{card} main.rs: the X11 plugin is forced. run.sh wraps the launch");
        assert!(super::Gist::of(report).beside(&all).is_none());
        let unrelated = super::Gist::of(report)
            .beside("something else")
            .expect("nothing shown");
        assert!(
            unrelated
                .within(200)
                .starts_with("Fixed the crash at start.")
        );
    }

    #[test]
    fn a_report_with_nothing_specific_is_cut_at_its_length() {
        let long = "word ".repeat(100);
        let g = gist(&long, 50);
        assert!(g.chars().count() <= 50);
        assert!(g.starts_with("word word"));
    }
}
