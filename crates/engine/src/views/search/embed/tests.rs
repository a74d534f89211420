//! The embedder against the reference: vectors and a similarity from sentence-transformers, token
//! ids from the Hugging Face tokenizer, both for the real all-MiniLM-L6-v2 files (skipped, and
//! recorded as skipped, when the weights are not fetched); and the tokenizer's mechanics and the
//! loader's errors on small files written here, which always run.

use std::io::Write;
use std::sync::OnceLock;

use super::wordpiece::{MAX_TOKENS, WordPiece};
use super::*;

/// The model's folder when both files are there; otherwise the test is skipped the way
/// `elnor_fixtures` skips a test whose corpus is absent: a failure when `ELNOR_REQUIRE_FIXTURES`
/// is set, else one line on stderr and the test's name in `$ELNOR_SKIP_LOG`.
pub(crate) fn model_dir() -> Option<PathBuf> {
    let dir = default_dir().unwrap_or_else(home_dir);
    if dir.join(WEIGHTS_FILE).is_file() && dir.join(VOCAB_FILE).is_file() {
        return Some(dir);
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let required = std::env::var("ELNOR_REQUIRE_FIXTURES").is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        !required,
        "{test} needs the all-MiniLM-L6-v2 weights in {}, and ELNOR_REQUIRE_FIXTURES is set",
        dir.display()
    );
    eprintln!(
        "skipped {test}: the all-MiniLM-L6-v2 weights are not in {} (scripts/setup.sh test \
         fetches them; or set {DIR_VAR})",
        dir.display()
    );
    if let Some(log) = std::env::var_os("ELNOR_SKIP_LOG") {
        // A skip that cannot be recorded is still a skip; the stderr line above says so.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{test}");
        }
    }
    None
}

/// The model, loaded once for all the tests that need it (loading takes a while in debug builds).
pub(crate) fn model() -> Option<&'static MiniLm> {
    static MODEL: OnceLock<MiniLm> = OnceLock::new();
    let dir = model_dir()?;
    Some(MODEL.get_or_init(|| MiniLm::load(&dir).expect("the fetched model loads")))
}

/// The real vocabulary: the tokenizer, and each id's token for readable assertions.
fn real_tokenizer() -> Option<(WordPiece, Vec<String>)> {
    let path = model_dir()?.join(VOCAB_FILE);
    let text = std::fs::read_to_string(&path).expect("vocab.txt reads");
    let tokenizer = WordPiece::from_vocab(&text, &path).expect("vocab.txt parses");
    Some((tokenizer, text.lines().map(str::to_owned).collect()))
}

fn tokens(tokenizer: &WordPiece, vocab: &[String], text: &str) -> Vec<String> {
    tokenizer
        .encode(text)
        .into_iter()
        .map(|id| vocab[id as usize].clone())
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn the_example_sentence_embeds_as_sentence_transformers_does() {
    let Some(model) = model() else { return };
    let vectors = model.embed(&["This is an example sentence"]);
    assert_eq!(vectors.len(), 1);
    let v = &vectors[0];
    assert_eq!(v.len(), DIMS);
    let expected = [0.067657, 0.063496, 0.048713, 0.079305, 0.037448];
    for (i, (got, want)) in v.iter().zip(expected).enumerate() {
        assert!((got - want).abs() < 1e-4, "dim {i}: {got} vs {want}");
    }
    assert!((dot(v, v) - 1.0).abs() < 1e-5, "unit length: {}", dot(v, v));
}

#[test]
fn two_sentences_are_as_similar_as_the_reference_says() {
    let Some(model) = model() else { return };
    let v = model.embed(&["This is an example sentence", "Each sentence is converted"]);
    let cosine = dot(&v[0], &v[1]);
    assert!((cosine - 0.404559).abs() < 1e-4, "cosine {cosine}");
}

#[test]
fn batching_and_threads_change_neither_the_vectors_nor_their_order() {
    let Some(model) = model() else { return };
    // Batches of at most 12 tokens make several batches of these few texts, so both workers run
    // and their results must be put back in order.
    let texts = [
        "The weather is lovely today.",
        "",
        "A man is playing a guitar on the street corner.",
        "Each sentence is converted",
        "The library extends its opening hours for students preparing for exams.",
        "ok",
    ];
    let together = model.embed_in_batches(&texts, 12);
    assert_eq!(together.len(), texts.len());
    for (text, vector) in texts.iter().zip(&together) {
        let alone = &model.embed(&[text])[0];
        let diff = vector.iter().zip(alone).map(|(a, b)| (a - b).abs());
        assert!(
            diff.fold(0f32, f32::max) < 1e-5,
            "{text:?} differs in a batch"
        );
    }
    assert!(model.embed(&[]).is_empty());
}

#[test]
fn accents_are_stripped_and_case_folded() {
    let Some((tokenizer, vocab)) = real_tokenizer() else {
        return;
    };
    assert_eq!(
        tokens(&tokenizer, &vocab, "Héllo, Wörld! Ça va? naïve café résumé"),
        [
            "[CLS]", "hello", ",", "world", "!", "ca", "va", "?", "naive", "cafe", "resume",
            "[SEP]"
        ]
    );
    assert_eq!(
        tokens(&tokenizer, &vocab, "Straße İstanbul"),
        ["[CLS]", "st", "##raße", "istanbul", "[SEP]"]
    );
}

#[test]
fn punctuation_is_split_off_into_tokens_of_its_own() {
    let Some((tokenizer, vocab)) = real_tokenizer() else {
        return;
    };
    assert_eq!(
        tokens(
            &tokenizer,
            &vocab,
            "don't 3.14159 $5.00 50% #hashtag @mention"
        ),
        [
            "[CLS]", "don", "'", "t", "3", ".", "141", "##59", "$", "5", ".", "00", "50", "%", "#",
            "hash", "##tag", "@", "mention", "[SEP]"
        ]
    );
    assert_eq!(
        tokens(&tokenizer, &vocab, "“quotes” … — x"),
        ["[CLS]", "“", "quotes", "”", "…", "—", "x", "[SEP]"]
    );
}

#[test]
fn a_word_over_a_hundred_characters_is_unknown() {
    let Some((tokenizer, vocab)) = real_tokenizer() else {
        return;
    };
    let word = "supercalifragilisticexpialidociousandevenlongerwordthatgoesonandonandonandonforever\
                andeverandeveryesmorethanhundredcharsxyz";
    assert_eq!(
        tokens(&tokenizer, &vocab, word),
        ["[CLS]", "[UNK]", "[SEP]"]
    );
}

#[test]
fn cjk_ideographs_are_words_of_their_own_and_kana_are_not() {
    let Some((tokenizer, vocab)) = real_tokenizer() else {
        return;
    };
    assert_eq!(
        tokens(
            &tokenizer,
            &vocab,
            "日本語のテキストと中文字符 mixed with English."
        ),
        [
            "[CLS]", "日", "本", "語", "の", "##テ", "##キ", "##ス", "##ト", "##と", "中", "文",
            "[UNK]", "[UNK]", "mixed", "with", "english", ".", "[SEP]"
        ]
    );
}

#[test]
fn control_and_format_characters_vanish_and_whitespace_separates() {
    let Some((tokenizer, vocab)) = real_tokenizer() else {
        return;
    };
    assert_eq!(
        tokens(
            &tokenizer,
            &vocab,
            "zero\u{200b}width\u{200c}joiner\u{200d} and soft\u{ad}hyphen"
        ),
        [
            "[CLS]", "zero", "##wi", "##dt", "##h", "##jo", "##iner", "and", "soft", "##hy",
            "##ph", "##en", "[SEP]"
        ]
    );
    assert_eq!(
        tokens(&tokenizer, &vocab, "tabs\tand\n\r  spaces"),
        ["[CLS]", "tab", "##s", "and", "spaces", "[SEP]"]
    );
}

/// A vocabulary small enough to reason about: the special tokens and a few pieces.
fn tiny() -> WordPiece {
    let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\naff\n,\nword\n";
    WordPiece::from_vocab(vocab, Path::new("tiny/vocab.txt")).expect("the tiny vocab parses")
}

#[test]
fn words_split_into_the_longest_pieces_from_the_left() {
    let t = tiny();
    // un ##aff ##able; "word" whole; "," alone; "affx" has no split, so the whole word is unknown.
    assert_eq!(t.encode("unaffable word,affx"), [2, 4, 5, 6, 9, 8, 1, 3]);
    assert_eq!(t.encode(""), [2, 3]);
    assert_eq!(t.encode(&"x".repeat(101)), [2, 1, 3]);
}

#[test]
fn long_texts_are_cut_to_the_models_length() {
    let ids = tiny().encode(&"word ".repeat(1000));
    assert_eq!(ids.len(), MAX_TOKENS);
    assert_eq!((ids[0], ids[MAX_TOKENS - 1]), (2, 3));
    assert!(ids[1..MAX_TOKENS - 1].iter().all(|&id| id == 9));
}

#[test]
fn a_vocabulary_without_its_special_tokens_is_refused() {
    let err = WordPiece::from_vocab("[PAD]\n[CLS]\n[SEP]\n", Path::new("v/vocab.txt"))
        .err()
        .expect("refused");
    let message = err.to_string();
    assert!(
        message.contains("v/vocab.txt") && message.contains("[UNK]"),
        "{message}"
    );
}

#[test]
fn missing_or_corrupt_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let err = MiniLm::load(dir.path()).err().expect("no files");
    assert!(
        matches!(err, Error::Io { ref path, .. } if path.ends_with(VOCAB_FILE)),
        "{err}"
    );

    std::fs::write(dir.path().join(VOCAB_FILE), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n").unwrap();
    let err = MiniLm::load(dir.path()).err().expect("no weights");
    assert!(
        matches!(err, Error::Io { ref path, .. } if path.ends_with(WEIGHTS_FILE)),
        "{err}"
    );

    // Too short for a header; a header length past the end; a header that is not JSON; a tensor
    // whose data lies past the end of the file.
    let tensor = r#"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[4,384],"data_offsets":[0,6144]}}"#;
    let mut past_the_end = (tensor.len() as u64).to_le_bytes().to_vec();
    past_the_end.extend_from_slice(tensor.as_bytes());
    let bad: [&[u8]; 4] = [
        b"",
        b"\xff\xff\xff\xff\xff\xff\xff\xff{}",
        b"\x02\x00\x00\x00\x00\x00\x00\x00[x",
        &past_the_end,
    ];
    for bytes in bad {
        std::fs::write(dir.path().join(WEIGHTS_FILE), bytes).unwrap();
        let err = MiniLm::load(dir.path()).err().expect("corrupt weights");
        let message = err.to_string();
        assert!(
            matches!(err, Error::InvalidInput(_)) && message.contains(WEIGHTS_FILE),
            "{message}"
        );
    }
}
