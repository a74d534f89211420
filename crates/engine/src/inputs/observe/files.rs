//! Turning file-system changes under a tracked folder into observations. The OS only says which
//! paths to look at; what happened is decided here by comparing the disk with `tracked_files`, the
//! watcher's memory of every file (size, mtime, content hash, line hashes, title, entities). That
//! makes the result the same whether a path came from an event, from the rescan of a folder that
//! was just created (whose first files inotify can miss), or from the periodic reconcile, and it
//! makes every change exactly one observation: a path already settled has nothing left to report.
//!
//! A vanished file and an appeared one with the same content in one pass are a rename. A file is
//! read whole up to [`MAX_TEXT_BYTES`]; a larger or non-UTF-8 file is hashed and compared by size.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::ignore::IgnoreRules;
use super::markdown;
use super::{NewObservation, Observation, ObservationKind, ObservationSource};
use crate::base::config::ContinuityConfig;
use crate::base::error::Result;
use crate::base::ids::{EntityId, WorkContextId};
use crate::graph::entities::KnownNames;
use crate::graph::entities::ts;
use crate::graph::store::Store;

/// Files up to this size are read as text for titles, deltas and entity mentions.
pub const MAX_TEXT_BYTES: u64 = 1024 * 1024;

/// The longest content delta kept with an observation, in characters.
const DELTA_CHARS: usize = 160;

/// What to look at under a root.
#[derive(Debug, Clone)]
pub enum Scope {
    /// Paths an event named (a file, a folder, or something now gone).
    Paths(Vec<PathBuf>),
    /// Everything under the root: a rescan or the periodic reconcile.
    All,
}

/// What one pass did.
#[derive(Debug, Default)]
pub struct Settled {
    pub observations: Vec<Observation>,
    /// Files looked at (stat'ed).
    pub files_seen: usize,
    /// Files whose content was read.
    pub files_read: usize,
    /// Files recorded without an observation: a first scan of a folder (its baseline).
    pub baselined: usize,
    /// Files that could not be read (permissions, vanished mid-read); they are tried again on the
    /// next pass.
    pub skipped: Vec<(PathBuf, String)>,
    /// The work contexts whose logs the observations wrote to, whose views the use case rebuilds.
    pub touched: BTreeSet<WorkContextId>,
}

/// A file as the disk has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    size: u64,
    mtime_ns: i64,
}

/// A file as `tracked_files` remembers it.
#[derive(Debug, Clone)]
struct Known {
    stat: Stat,
    hash: String,
    line_hashes: Option<Vec<u64>>,
    title: Option<String>,
    entity_ids: Vec<EntityId>,
}

/// A file's content, read.
#[derive(Debug, Clone)]
struct Content {
    stat: Stat,
    hash: String,
    /// The text, for files that are UTF-8 and small enough.
    text: Option<String>,
}

/// Whether `root` has been baselined.
pub fn is_baselined(store: &Store, root: &Path) -> Result<bool> {
    store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT 1 FROM tracked_roots WHERE root = ?1",
            [root.to_string_lossy()],
            |_| Ok(()),
        )
        .optional()
        .map(|r| r.is_some())
    })
}

/// How many files the watcher remembers.
pub fn tracked_file_count(store: &Store) -> Result<u64> {
    store.graph().count("SELECT count(*) FROM tracked_files")
}

/// Looks at `scope` under `root` and stores an observation for every change found. The first pass
/// over a root that was never baselined records its files silently instead.
pub fn settle(
    store: &Store,
    config: &ContinuityConfig,
    rules: &IgnoreRules,
    root: &Path,
    scope: &Scope,
    now: DateTime<Utc>,
) -> Result<Settled> {
    let mut out = Settled::default();
    let baseline = !is_baselined(store, root)?;
    let (on_disk, known) = gather(store, rules, root, scope, baseline, &mut out.skipped)?;
    out.files_seen = on_disk.len();
    let mut appeared: Vec<(PathBuf, Content)> = Vec::new();
    let mut changed: Vec<(PathBuf, Known, Content)> = Vec::new();
    let mut vanished: Vec<(PathBuf, Known)> = Vec::new();
    let mut known = known;
    let mut writes: Vec<Write> = Vec::new();
    for (path, stat) in on_disk {
        let before = known.remove(&path);
        if let Some(k) = &before
            && k.stat == stat
        {
            continue;
        }
        let content = match read(&path) {
            Ok(c) => c,
            Err(e) => {
                out.skipped.push((path, e.to_string()));
                continue;
            }
        };
        out.files_read += 1;
        match before {
            Some(k) if k.hash == content.hash => {
                // Touched, not changed: remember the new mtime so it is not read again.
                writes.push(Write::Touch(path, content.stat));
            }
            Some(k) => changed.push((path, k, content)),
            None => appeared.push((path, content)),
        }
    }
    vanished.extend(known);
    let matcher = Matcher::new(store);
    let mut batch: Vec<NewObservation> = Vec::new();
    if baseline {
        for (path, content) in appeared {
            let facts = Facts::of(&path, &content, &matcher)?;
            writes.push(Write::Remember(path, content, facts));
            out.baselined += 1;
        }
        let root_text = root.to_string_lossy().into_owned();
        let at = ts(now);
        let (_, touched) = super::record_all(
            store,
            config,
            Vec::new(),
            |c| {
                apply(c, root, writes)?;
                c.execute(
                    "INSERT OR IGNORE INTO tracked_roots (root, baselined_at) VALUES (?1, ?2)",
                    params![root_text, at],
                )
                .map(|_| ())
            },
            now,
        )?;
        out.touched = touched;
        return Ok(out);
    }
    // A rename is a vanished file and an appeared one with the same content, paired by hash (the
    // same name first, for a file moved between folders among identical copies).
    let mut renames = Vec::new();
    vanished.sort_by(|a, b| a.0.cmp(&b.0));
    appeared.sort_by(|a, b| a.0.cmp(&b.0));
    let mut i = 0;
    while i < vanished.len() {
        let hash = vanished[i].1.hash.clone();
        let name = vanished[i].0.file_name().map(|n| n.to_owned());
        let pick = appeared
            .iter()
            .position(|(p, c)| c.hash == hash && p.file_name().map(|n| n.to_owned()) == name)
            .or_else(|| appeared.iter().position(|(_, c)| c.hash == hash));
        match pick {
            Some(j) => {
                let (from, k) = vanished.remove(i);
                let (to, c) = appeared.remove(j);
                renames.push((from, k, to, c));
            }
            None => i += 1,
        }
    }
    for (path, content) in appeared {
        let facts = Facts::of(&path, &content, &matcher)?;
        let text = created_delta(&content, &facts);
        let entities = facts.entity_ids.clone();
        batch.push(file_observation(
            store,
            ObservationKind::Created,
            &path,
            None,
            &facts,
            text,
            entities,
        )?);
        writes.push(Write::Remember(path, content, facts));
    }
    for (path, before, content) in changed {
        let facts = Facts::of(&path, &content, &matcher)?;
        let (text, added) = modified_delta(&before, &content);
        // The title names what the file is about; the added lines name what this edit touched.
        let entities = matcher.mentions(&format!(
            "{}\n{}\n{added}",
            facts.title.clone().unwrap_or_default(),
            stem(&path)
        ))?;
        batch.push(file_observation(
            store,
            ObservationKind::Modified,
            &path,
            None,
            &facts,
            text,
            entities,
        )?);
        writes.push(Write::Remember(path, content, facts));
    }
    for (from, before, to, content) in renames {
        let facts = Facts::of(&to, &content, &matcher)?;
        let mut entities = before.entity_ids.clone();
        for e in matcher.mentions(&stem(&to))? {
            if !entities.contains(&e) {
                entities.push(e);
            }
        }
        let text = format!("moved from {}", rel(root, &from));
        batch.push(file_observation(
            store,
            ObservationKind::Renamed,
            &to,
            Some(&from),
            &facts,
            text,
            entities,
        )?);
        writes.push(Write::Forget(from));
        writes.push(Write::Remember(to, content, facts));
    }
    for (path, before) in vanished {
        let facts = Facts {
            title: before.title.clone(),
            details: None,
            entity_ids: before.entity_ids.clone(),
        };
        let text = match &before.line_hashes {
            Some(lines) => format!("deleted ({})", lines_words(lines.len())),
            None => format!("deleted ({})", size_words(before.stat.size)),
        };
        let entities = before.entity_ids.clone();
        batch.push(file_observation(
            store,
            ObservationKind::Deleted,
            &path,
            None,
            &facts,
            text,
            entities,
        )?);
        writes.push(Write::Forget(path));
    }
    if batch.is_empty() && writes.is_empty() {
        return Ok(out);
    }
    (out.observations, out.touched) =
        super::record_all(store, config, batch, |c| apply(c, root, writes), now)?;
    Ok(out)
}

/// A change to the watcher's memory of a file, written with the observations it goes with.
enum Write {
    Remember(PathBuf, Content, Facts),
    Touch(PathBuf, Stat),
    Forget(PathBuf),
}

fn apply(c: &Connection, root: &Path, writes: Vec<Write>) -> rusqlite::Result<()> {
    for w in writes {
        match w {
            Write::Remember(path, content, facts) => remember(c, root, &path, &content, &facts)?,
            Write::Touch(path, stat) => {
                c.execute(
                    "UPDATE tracked_files SET size = ?2, mtime_ns = ?3 WHERE path = ?1",
                    params![path.to_string_lossy(), stat.size as i64, stat.mtime_ns],
                )?;
            }
            Write::Forget(path) => {
                c.execute(
                    "DELETE FROM tracked_files WHERE path = ?1",
                    [path.to_string_lossy()],
                )?;
            }
        }
    }
    Ok(())
}

/// One file observation, placed in the work context whose `cwd` rule holds the file.
fn file_observation(
    store: &Store,
    kind: ObservationKind,
    path: &Path,
    from: Option<&Path>,
    facts: &Facts,
    text: String,
    entities: Vec<EntityId>,
) -> Result<NewObservation> {
    let work_context = crate::graph::contexts::for_path(store.graph(), &path.to_string_lossy())?;
    Ok(NewObservation {
        source: ObservationSource::File,
        kind,
        path: Some(path.to_owned()),
        from_path: from.map(Path::to_owned),
        title: facts.title.clone().or_else(|| file_name(path)),
        text,
        details: facts.details.clone(),
        work_context,
        entities,
        create: Vec::new(),
    })
}

/// What the disk has and what the table remembers, for the scope.
fn gather(
    store: &Store,
    rules: &IgnoreRules,
    root: &Path,
    scope: &Scope,
    baseline: bool,
    skipped: &mut Vec<(PathBuf, String)>,
) -> Result<(BTreeMap<PathBuf, Stat>, BTreeMap<PathBuf, Known>)> {
    let mut on_disk = BTreeMap::new();
    let mut known = BTreeMap::new();
    // A baseline walks everything whatever the event named.
    let all = baseline || matches!(scope, Scope::All);
    let mut paths = Vec::new();
    if all {
        walk(rules, root, root, &mut on_disk, skipped);
    } else if let Scope::Paths(named) = scope {
        for p in named {
            if !p.starts_with(root) || rules.is_ignored(root, p) {
                continue;
            }
            match fs::symlink_metadata(p) {
                Ok(m) if m.is_dir() => walk(rules, root, p, &mut on_disk, skipped),
                Ok(_) if p.to_str().is_none() => skipped.push((p.clone(), NOT_UTF8.to_owned())),
                Ok(m) if m.is_file() => {
                    on_disk.insert(p.clone(), stat_of(&m));
                }
                _ => {}
            }
            paths.push(p.to_string_lossy().into_owned());
        }
    }
    // The disk is walked before the graph's connection is taken, so a long walk holds no one up.
    let graph = store.graph();
    let conn = graph.conn();
    let sql = |e| graph.sql(e);
    if all {
        let mut stmt = conn
            .prepare_cached(&format!("{KNOWN_SELECT} WHERE root = ?1"))
            .map_err(sql)?;
        for k in stmt
            .query_map([root.to_string_lossy()], known_row)
            .map_err(sql)?
        {
            let (p, k) = k.map_err(sql)?;
            known.insert(p, k);
        }
    } else {
        for text in &paths {
            // The path itself, or everything under it when it was (or is) a folder.
            let mut stmt = conn
                .prepare_cached(&format!(
                    "{KNOWN_SELECT} WHERE path = ?1 OR (path > ?1 || '/' AND path < ?1 || '0')"
                ))
                .map_err(sql)?;
            for k in stmt.query_map([text], known_row).map_err(sql)? {
                let (p, k) = k.map_err(sql)?;
                known.insert(p, k);
            }
        }
    }
    Ok((on_disk, known))
}

const KNOWN_SELECT: &str =
    "SELECT path, size, mtime_ns, hash, line_hashes, title, entity_ids FROM tracked_files";

fn known_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(PathBuf, Known)> {
    let lines: Option<Vec<u8>> = r.get(4)?;
    let entity_ids: String = r.get(6)?;
    Ok((
        PathBuf::from(r.get::<_, String>(0)?),
        Known {
            stat: Stat {
                size: r.get::<_, i64>(1)?.max(0) as u64,
                mtime_ns: r.get(2)?,
            },
            hash: r.get(3)?,
            line_hashes: lines.map(|b| {
                b.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect()
            }),
            title: r.get(5)?,
            entity_ids: entity_ids
                .split(',')
                .filter(|s| !s.is_empty())
                .filter_map(|s| EntityId::new(s).ok())
                .collect(),
        },
    ))
}

/// Every regular file under `dir`, skipping ignored folders without entering them. A file whose
/// path is not valid UTF-8 is skipped and counted: the store keeps paths as text, and a lossy
/// spelling would never match the disk again.
fn walk(
    rules: &IgnoreRules,
    root: &Path,
    dir: &Path,
    out: &mut BTreeMap<PathBuf, Stat>,
    skipped: &mut Vec<(PathBuf, String)>,
) {
    let entries = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.path() == root || !rules.is_ignored(root, e.path()));
    // An unreadable folder is skipped here and tried again by the next pass; the files it could
    // read are still settled.
    for entry in entries.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        if entry.path().to_str().is_none() {
            skipped.push((entry.into_path(), NOT_UTF8.to_owned()));
            continue;
        }
        if let Ok(m) = entry.metadata() {
            out.insert(entry.into_path(), stat_of(&m));
        }
    }
}

const NOT_UTF8: &str = "the file's path is not valid UTF-8";

fn stat_of(m: &fs::Metadata) -> Stat {
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos().min(i64::MAX as u128) as i64)
        .unwrap_or(0);
    Stat {
        size: m.len(),
        mtime_ns,
    }
}

fn read(path: &Path) -> std::io::Result<Content> {
    let mut file = fs::File::open(path)?;
    let stat = stat_of(&file.metadata()?);
    let mut hasher = Sha256::new();
    let mut text = None;
    if stat.size <= MAX_TEXT_BYTES {
        let mut bytes = Vec::with_capacity(stat.size as usize);
        file.take(MAX_TEXT_BYTES + 1).read_to_end(&mut bytes)?;
        hasher.update(&bytes);
        if bytes.len() as u64 <= MAX_TEXT_BYTES {
            text = String::from_utf8(bytes).ok();
        }
    } else {
        std::io::copy(&mut file, &mut hasher)?;
    }
    let hash: String = hasher
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Content { stat, hash, text })
}

/// What a file's content says: title, headings and links, entity mentions.
#[derive(Debug, Clone)]
struct Facts {
    title: Option<String>,
    details: Option<String>,
    entity_ids: Vec<EntityId>,
}

impl Facts {
    fn of(path: &Path, content: &Content, matcher: &Matcher<'_>) -> Result<Facts> {
        let name = file_name(path).unwrap_or_default();
        let Some(text) = &content.text else {
            return Ok(Facts {
                title: None,
                details: None,
                entity_ids: matcher.mentions(&stem(path))?,
            });
        };
        if markdown::is_markdown(&name) {
            let outline = markdown::parse(text);
            let details = (!outline.headings.is_empty() || !outline.links.is_empty())
                .then(|| serde_json::to_string(&outline).unwrap_or_default());
            let title = outline.title.clone();
            let entity_ids = matcher.mentions(&format!(
                "{}\n{}\n{}",
                title.clone().unwrap_or_default(),
                stem(path),
                outline.text
            ))?;
            return Ok(Facts {
                title,
                details,
                entity_ids,
            });
        }
        Ok(Facts {
            title: None,
            details: None,
            entity_ids: matcher.mentions(&format!("{}\n{text}", stem(path)))?,
        })
    }
}

/// The graph's known names, fetched on first use: a reconcile that finds nothing changed never
/// asks for them (the graph keeps them between calls while no name changes).
struct Matcher<'s> {
    store: &'s Store,
    built: std::cell::OnceCell<std::sync::Arc<KnownNames>>,
}

impl<'s> Matcher<'s> {
    fn new(store: &'s Store) -> Matcher<'s> {
        Matcher {
            store,
            built: std::cell::OnceCell::new(),
        }
    }

    fn mentions(&self, text: &str) -> Result<Vec<EntityId>> {
        if self.built.get().is_none() {
            let _ = self.built.set(self.store.graph().known_names()?);
        }
        Ok(self
            .built
            .get()
            .map(|k| super::mentioned_with(&k.matcher, text))
            .unwrap_or_default())
    }
}

fn remember(
    c: &Connection,
    root: &Path,
    path: &Path,
    content: &Content,
    facts: &Facts,
) -> rusqlite::Result<()> {
    let lines: Option<Vec<u8>> = content.text.as_deref().map(|t| {
        line_hashes(t)
            .iter()
            .flat_map(|h| h.to_le_bytes())
            .collect()
    });
    let entity_ids = facts
        .entity_ids
        .iter()
        .map(EntityId::as_str)
        .collect::<Vec<_>>()
        .join(",");
    c.execute(
        "INSERT INTO tracked_files
             (path, root, size, mtime_ns, hash, line_hashes, title, entity_ids)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (path) DO UPDATE SET root = ?2, size = ?3, mtime_ns = ?4, hash = ?5,
             line_hashes = ?6, title = ?7, entity_ids = ?8",
        params![
            path.to_string_lossy(),
            root.to_string_lossy(),
            content.stat.size as i64,
            content.stat.mtime_ns,
            content.hash,
            lines,
            facts.title,
            entity_ids
        ],
    )
    .map(|_| ())
}

/// Forgets every file of a folder that is no longer tracked, so tracking it again starts with a
/// silent baseline rather than a burst of creations.
pub fn forget_root(store: &Store, root: &Path) -> Result<()> {
    store.graph().with_conn_result(|c: &Connection| {
        c.execute(
            "DELETE FROM tracked_files WHERE root = ?1",
            [root.to_string_lossy()],
        )?;
        c.execute(
            "DELETE FROM tracked_roots WHERE root = ?1",
            [root.to_string_lossy()],
        )
        .map(|_| ())
    })
}

fn line_hashes(text: &str) -> Vec<u64> {
    text.lines().map(line_hash).collect()
}

/// A line's identity for the delta; trailing whitespace does not make a line new.
fn line_hash(line: &str) -> u64 {
    let d = Sha256::digest(line.trim_end().as_bytes());
    u64::from_le_bytes(d[..8].try_into().unwrap_or_default())
}

fn created_delta(content: &Content, facts: &Facts) -> String {
    let mut s = match &content.text {
        Some(t) => format!("new file, {}", lines_words(t.lines().count())),
        None => format!("new file, {}", size_words(content.stat.size)),
    };
    if let Some(details) = &facts.details
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(details)
        && let Some(h) = v["headings"].as_array()
        && !h.is_empty()
    {
        let heads: Vec<&str> = h.iter().take(3).filter_map(|x| x.as_str()).collect();
        s.push_str(&format!("; headings: {}", heads.join(", ")));
    }
    condense(&s)
}

/// The short delta of an edit, and the added lines' text (for entity mentions).
fn modified_delta(before: &Known, content: &Content) -> (String, String) {
    let (Some(old), Some(text)) = (&before.line_hashes, &content.text) else {
        return (
            format!(
                "{} → {}",
                size_words(before.stat.size),
                size_words(content.stat.size)
            ),
            String::new(),
        );
    };
    let mut old_counts: HashMap<u64, usize> = HashMap::new();
    for h in old {
        *old_counts.entry(*h).or_default() += 1;
    }
    let mut added = Vec::new();
    for line in text.lines() {
        let h = line_hash(line);
        match old_counts.get_mut(&h) {
            Some(n) if *n > 0 => *n -= 1,
            _ => added.push(line),
        }
    }
    let removed: usize = old_counts.values().sum();
    let mut s = format!(
        "+{} −{} line{}",
        added.len(),
        removed,
        if added.len() + removed == 1 { "" } else { "s" }
    );
    if let Some(first) = added.iter().map(|l| l.trim()).find(|l| !l.is_empty()) {
        s.push_str(&format!(": “{first}”"));
    }
    (condense(&s), added.join("\n"))
}

fn condense(s: &str) -> String {
    if s.chars().count() <= DELTA_CHARS {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(DELTA_CHARS - 1).collect();
    out.push('…');
    out
}

fn lines_words(n: usize) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

fn size_words(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn file_name(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// The file name without its extension, with separators as spaces: `henderson-brief.md` reads
/// "henderson brief", so the name alone can mention an entity.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|n| n.to_string_lossy().replace(['-', '_', '.'], " "))
        .unwrap_or_default()
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// One full pass over every tracked folder that exists: what
/// `elnor folders scan` runs, and what the watcher's periodic reconcile does per folder. Returns
/// every folder's settlement merged into one.
pub(crate) fn reconcile_all(store: &Store, now: DateTime<Utc>) -> Result<Settled> {
    let config = store.config()?;
    let tracked = store.tracked_folders().load()?;
    let rules = IgnoreRules::new(&tracked.ignore_patterns);
    let mut out = Settled::default();
    for root in &tracked.folders {
        // A missing folder (deleted, or a drive not mounted) is compared when it is back.
        if !root.is_dir() {
            continue;
        }
        let settled = settle(store, &config, &rules, root, &Scope::All, now)?;
        out.observations.extend(settled.observations);
        out.files_seen += settled.files_seen;
        out.files_read += settled.files_read;
        out.baselined += settled.baselined;
        out.skipped.extend(settled.skipped);
        out.touched.extend(settled.touched);
    }
    Ok(out)
}
