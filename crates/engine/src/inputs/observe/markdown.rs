//! What an observation keeps of a markdown file (SPEC §8, §11): its title (frontmatter `title:`,
//! else the first heading, else the file name), its headings and links, and its plain text for
//! entity mentions, read with pulldown-cmark.

use pulldown_cmark::{Event, HeadingLevel, MetadataBlockKind, Options, Parser, Tag, TagEnd};
use serde::Serialize;

/// At most this many headings and links are kept with an observation.
const KEPT: usize = 20;

/// One link: where it points and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    pub dest: String,
    pub text: String,
}

/// A parsed markdown document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outline {
    pub title: Option<String>,
    pub headings: Vec<String>,
    pub links: Vec<Link>,
    /// The YAML frontmatter's top-level `key: value` lines, in order (values unquoted; nested
    /// and list values are kept as their raw text). Not kept with an observation.
    #[serde(skip)]
    pub frontmatter: Vec<(String, String)>,
    /// Text content (headings, paragraphs, link texts), for entity matching.
    #[serde(skip)]
    pub text: String,
}

/// Whether a file name is markdown by its extension.
pub fn is_markdown(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".md", ".markdown", ".mdown", ".mkd"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Parses `source`. Never fails: pulldown-cmark reads any text as some markdown.
pub fn parse(source: &str) -> Outline {
    let options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let mut out = Outline::default();
    let mut first_h1: Option<String> = None;
    let mut first_heading: Option<String> = None;
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut link: Option<Link> = None;
    let mut in_metadata = false;
    for event in Parser::new_ext(source, options) {
        match event {
            Event::Start(Tag::MetadataBlock(MetadataBlockKind::YamlStyle)) => in_metadata = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_metadata = false,
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => {
                out.text.push('\n');
                if let Some((level, text)) = heading.take() {
                    let text = text.trim().to_owned();
                    if !text.is_empty() {
                        if level == HeadingLevel::H1 && first_h1.is_none() {
                            first_h1 = Some(text.clone());
                        }
                        first_heading.get_or_insert_with(|| text.clone());
                        if out.headings.len() < KEPT {
                            out.headings.push(text);
                        }
                    }
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                link = Some(Link {
                    dest: dest_url.into_string(),
                    text: String::new(),
                });
            }
            Event::End(TagEnd::Link) => {
                if let Some(l) = link.take()
                    && out.links.len() < KEPT
                {
                    out.links.push(l);
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if in_metadata {
                    if out.title.is_none() {
                        out.title = frontmatter_title(&t);
                    }
                    out.frontmatter.extend(frontmatter_fields(&t));
                    continue;
                }
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
                if let Some(l) = link.as_mut() {
                    l.text.push_str(&t);
                }
                out.text.push_str(&t);
            }
            // A block's end is a line break in the text, so a heading's last word and the next
            // paragraph's first word stay two words.
            Event::End(TagEnd::Item | TagEnd::TableCell | TagEnd::CodeBlock) => out.text.push('\n'),
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph) => {
                out.text.push('\n');
                if let Some((_, h)) = heading.as_mut() {
                    h.push(' ');
                }
            }
            _ => {}
        }
    }
    if out.title.is_none() {
        out.title = first_h1.or(first_heading);
    }
    out
}

/// The top-level `key: value` lines of a YAML frontmatter block. Not a YAML parser: a Library
/// page shows the fields as the person wrote them, and a line it cannot read is left out.
fn frontmatter_fields(block: &str) -> Vec<(String, String)> {
    block
        .lines()
        .filter(|line| !line.starts_with([' ', '\t', '-', '#']))
        .filter_map(|line| {
            let (key, value) = line.split_once(':')?;
            let key = key.trim();
            let ok = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '));
            ok.then(|| (key.to_owned(), unquote(value.trim()).to_owned()))
        })
        .take(KEPT)
        .collect()
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value)
        .trim()
}

/// The `title:` of a YAML frontmatter block, unquoted.
fn frontmatter_title(block: &str) -> Option<String> {
    block.lines().find_map(|line| {
        let value = line.strip_prefix("title:")?.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value)
            .trim();
        (!value.is_empty()).then(|| value.to_owned())
    })
}
