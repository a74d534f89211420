//! The Health page's plain words: counts with their nouns ("1 file", "12 sessions"), ages ("3
//! hours ago") and rhythms ("every ~9 hours"), so every sentence on the page says time and
//! quantity the same way.

/// `n` with its noun, plural unless it is one: "1 file", "12 files".
pub(super) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A length of time as people say it, at the coarsest unit that is not zero: "5 minutes",
/// "3 hours", "12 days", "about 8 months". Hours run up to two days, because "30 hours" says
/// more than "1 day"; days run up to two months, past which the exact day no longer matters.
pub(super) fn span(minutes: i64) -> String {
    const DAY: u64 = 24 * 60;
    let minutes = u64::try_from(minutes).unwrap_or(0);
    match minutes {
        0..60 => count(minutes.max(1), "minute"),
        60..2880 => count(minutes / 60, "hour"),
        m if m < 61 * DAY => count(m / DAY, "day"),
        m => format!("about {}", count((m + 15 * DAY) / (30 * DAY), "month")),
    }
}

/// How long before the report a moment was: "just now", "3 hours ago". A moment after it (a
/// file touched while the clock is replayed) reads as just now rather than as a negative age.
pub(super) fn ago(minutes: i64) -> String {
    if minutes < 1 {
        "just now".to_owned()
    } else {
        format!("{} ago", span(minutes))
    }
}

/// An agent's usual rhythm, from its usual gap between sessions in hours: "every hour",
/// "every ~9 hours", "every day", "every ~2 days". Gaps of a day and a half or more are said in
/// days, rounded, since nobody's rhythm is exact to the hour.
pub(super) fn every(hours: i64) -> String {
    match hours {
        ..=1 => "every hour".to_owned(),
        24 => "every day".to_owned(),
        2..36 => format!("every ~{hours} hours"),
        _ => match (hours + 12) / 24 {
            1 => "every day".to_owned(),
            days => format!("every ~{days} days"),
        },
    }
}
