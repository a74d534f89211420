//! The time a query names ("what did we pick on June 3, 2023", "the setback in October
//! 2023"): a day or a month written out, read so that search can favour what happened then.
//!
//! People recall work by when it happened as often as by its words, and a date in a query is
//! rarely a word of the turn it looks for: the turn is stamped with its time, not written with
//! it. The date stays in the query's words (a note may say it too); the window only adds to the
//! score of what the words found inside it (`query.rs`, [`TIME_BONUS`](super::query)).
//!
//! Read: `3 June 2023`, `3rd of June, 2023`, `June 3, 2023`, `Jun 3 2023`, `June 2023`,
//! `2023-06-03`, `2023/06`, `2023年6月3日`, `2023年6月`. English month names, full or cut to
//! three letters; a date without its year names no window (which year would be a guess).

use chrono::{Datelike, Duration, NaiveDate};

/// What a query names: a window of seconds (UTC), from `from` up to `to`, and the date as the
/// query wrote it, for a hit's "why".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Named {
    pub(crate) from: i64,
    pub(crate) to: i64,
    pub(crate) said: String,
}

/// How far a window reaches past the day or month named: a person's day is not UTC's (up to
/// 14 hours apart), and a session that began in the evening ends on the next day.
const SLACK_DAYS: i64 = 1;

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The first day or month `query` names, when it names one with its year.
pub(crate) fn named_in(query: &str) -> Option<Named> {
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '?' | '!' | ';'))
        .filter(|w| !w.is_empty())
        .collect();
    (0..words.len()).find_map(|at| {
        let (first, last) = written_at(&words[at..])?;
        let said = words[at..at + last.1].join(" ");
        window(first, last.0, said)
    })
}

/// The dates a run of words opens with: the first day named and the last day the named span
/// covers (a month's last day), with how many words it took.
fn written_at(words: &[&str]) -> Option<(NaiveDate, (NaiveDate, usize))> {
    let word = |i: usize| words.get(i).copied();
    if let Some(found) = numeric(words[0]) {
        return Some(found);
    }
    // "3 June 2023", "3rd of June, 2023"
    if let Some(day) = day_of(words[0]) {
        let skip = usize::from(word(1) == Some("of"));
        if let (Some(month), Some(year)) = (
            word(1 + skip).and_then(month_of),
            word(2 + skip).and_then(year_of),
        ) {
            let date = NaiveDate::from_ymd_opt(year, month, day)?;
            return Some((date, (date, 3 + skip)));
        }
        return None;
    }
    let month = month_of(words[0])?;
    // "June 3, 2023"
    if let (Some(day), Some(year)) = (word(1).and_then(day_of), word(2).and_then(year_of)) {
        let date = NaiveDate::from_ymd_opt(year, month, day)?;
        return Some((date, (date, 3)));
    }
    // "June 2023"
    let year = word(1).and_then(year_of)?;
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    Some((first, (last_of_month(first), 2)))
}

/// `2023-06-03`, `2023/06`, `2023年6月3日`, `2023年6月`: one word, or the start of one (a
/// script without spaces runs on into the next word: `2023年6月3日の会議`).
fn numeric(word: &str) -> Option<(NaiveDate, (NaiveDate, usize))> {
    let end = word
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '/' | '年' | '月' | '日')))
        .unwrap_or(word.len());
    let word = word[..end].trim_end_matches('日');
    let parts: Vec<&str> = word.split(['-', '/', '年', '月']).collect();
    let numbers: Vec<u32> = parts
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    if parts.first().is_none_or(|y| y.len() != 4) {
        return None;
    }
    let year = year_of(parts[0])?;
    match numbers[1..] {
        [month, day] => {
            let date = NaiveDate::from_ymd_opt(year, month, day)?;
            Some((date, (date, 1)))
        }
        [month] => {
            let first = NaiveDate::from_ymd_opt(year, month, 1)?;
            Some((first, (last_of_month(first), 1)))
        }
        _ => None,
    }
}

fn month_of(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    if word.len() < 3 {
        return None;
    }
    let at = MONTHS.iter().position(|m| {
        *m == word
            || (word.len() == 3 && m.starts_with(word))
            || (word == "sept" && *m == "september")
    })?;
    u32::try_from(at + 1).ok()
}

/// `3`, `03`, `3rd`, `21st`: a day of a month.
fn day_of(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(['.']);
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| digits.strip_suffix(s))
        .unwrap_or(digits);
    let day: u32 = (digits.len() <= 2).then(|| digits.parse().ok())??;
    (1..=31).contains(&day).then_some(day)
}

/// A year of four digits, between 1970 and 2100: a port or a count of four digits is no year.
fn year_of(word: &str) -> Option<i32> {
    let word = word.trim_end_matches('.');
    let year: i32 = (word.len() == 4 && word.chars().all(|c| c.is_ascii_digit()))
        .then(|| word.parse().ok())??;
    (1970..=2100).contains(&year).then_some(year)
}

fn last_of_month(first: NaiveDate) -> NaiveDate {
    let next = if first.month() == 12 {
        NaiveDate::from_ymd_opt(first.year() + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(first.year(), first.month() + 1, 1)
    };
    next.and_then(|n| n.pred_opt()).unwrap_or(first)
}

fn window(first: NaiveDate, last: NaiveDate, said: String) -> Option<Named> {
    let start = first.checked_sub_signed(Duration::days(SLACK_DAYS))?;
    let end = last.checked_add_signed(Duration::days(SLACK_DAYS + 1))?;
    Some(Named {
        from: start.and_hms_opt(0, 0, 0)?.and_utc().timestamp(),
        to: end.and_hms_opt(0, 0, 0)?.and_utc().timestamp(),
        said,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn days(query: &str) -> Option<(String, String, String)> {
        named_in(query).map(|n| {
            let day = |s: i64| {
                chrono::DateTime::from_timestamp(s, 0)
                    .unwrap()
                    .date_naive()
                    .to_string()
            };
            (day(n.from), day(n.to), n.said)
        })
    }

    #[test]
    fn a_day_or_a_month_written_out_names_a_window_with_a_day_to_spare() {
        let day = |from: &str, to: &str, said: &str| {
            Some((from.to_owned(), to.to_owned(), said.to_owned()))
        };
        for (query, expected) in [
            (
                "What did Gina find for her store on 1 February, 2023?",
                day("2023-01-31", "2023-02-03", "1 february 2023"),
            ),
            (
                "the painting shown on October 13, 2023",
                day("2023-10-12", "2023-10-15", "october 13 2023"),
            ),
            (
                "what broke on the 3rd of June 2023",
                day("2023-06-02", "2023-06-05", "3rd of june 2023"),
            ),
            (
                "setback in October 2023?",
                day("2023-09-30", "2023-11-02", "october 2023"),
            ),
            (
                "release notes Dec 2024",
                day("2024-11-30", "2025-01-02", "dec 2024"),
            ),
            (
                "deploy 2026-03-01 failed",
                day("2026-02-28", "2026-03-03", "2026-03-01"),
            ),
            (
                "2025/02 invoices",
                day("2025-01-31", "2025-03-02", "2025/02"),
            ),
            (
                "2024年6月3日の会議",
                day("2024-06-02", "2024-06-05", "2024年6月3日の会議"),
            ),
            (
                "2024年6月3日 会議",
                day("2024-06-02", "2024-06-05", "2024年6月3日"),
            ),
        ] {
            assert_eq!(days(query), expected, "{query}");
        }
    }

    #[test]
    fn words_that_only_look_like_a_date_name_none() {
        for query in [
            "May I run the migration?",
            "June release plan",
            "the 2023 roadmap",
            "port 8080 on 3 june",
            "version 2.4.1",
            "2023-13-01",
            "march 32 2024 is not a day",
            "listening on June 3 8080",
            "+202 items in May 0999",
        ] {
            assert_eq!(named_in(query), None, "{query}");
        }
    }
}
