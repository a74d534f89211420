//! The embedders against their references: for the real all-MiniLM-L6-v2 files, vectors and a
//! similarity from sentence-transformers and token ids from the Hugging Face tokenizer; for the
//! real multilingual-e5-small file, token ids and vectors from its package's own engine and
//! similarities across languages (each skipped, and recorded as skipped, when its weights are
//! not fetched); and the tokenizers' mechanics and the loaders' errors on small files written
//! here, which always run.

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
    skipped("the all-MiniLM-L6-v2 weights", &dir, DIR_VAR)
}

/// multilingual-e5-small's file when it is there; otherwise the test is skipped as
/// [`model_dir`] skips.
fn e5_model_file() -> Option<PathBuf> {
    match e5_file() {
        Some(file) if file.is_file() => Some(file),
        _ => skipped(
            "the multilingual-e5-small weights",
            &e5_home_file(),
            E5_FILE_VAR,
        ),
    }
}

/// Records the running test as skipped for want of `what` at `place`: a failure when
/// `ELNOR_REQUIRE_FIXTURES` is set, else one line on stderr and the test's name in
/// `$ELNOR_SKIP_LOG`.
fn skipped<T>(what: &str, place: &Path, var: &str) -> Option<T> {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let required = std::env::var("ELNOR_REQUIRE_FIXTURES").is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        !required,
        "{test} needs {what} in {}, and ELNOR_REQUIRE_FIXTURES is set",
        place.display()
    );
    eprintln!(
        "skipped {test}: {what} are not in {} (scripts/setup.sh test fetches them; or set {var})",
        place.display()
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
pub(crate) fn model() -> Option<&'static LocalModel> {
    static MODEL: OnceLock<LocalModel> = OnceLock::new();
    let dir = model_dir()?;
    Some(MODEL.get_or_init(|| LocalModel::minilm(&dir).expect("the fetched model loads")))
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
    let vectors = model.embed(&["This is an example sentence"], Purpose::Passage);
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
    let v = model.embed(
        &["This is an example sentence", "Each sentence is converted"],
        Purpose::Passage,
    );
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
    let together = model.embed_in_batches(&texts, Purpose::Passage, 12);
    assert_eq!(together.len(), texts.len());
    for (text, vector) in texts.iter().zip(&together) {
        let alone = &model.embed(&[text], Purpose::Passage)[0];
        let diff = vector.iter().zip(alone).map(|(a, b)| (a - b).abs());
        assert!(
            diff.fold(0f32, f32::max) < 1e-5,
            "{text:?} differs in a batch"
        );
    }
    assert!(model.embed(&[], Purpose::Passage).is_empty());
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
    let err = LocalModel::minilm(dir.path()).err().expect("no files");
    assert!(
        matches!(err, Error::Io { ref path, .. } if path.ends_with(VOCAB_FILE)),
        "{err}"
    );

    std::fs::write(dir.path().join(VOCAB_FILE), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n").unwrap();
    let err = LocalModel::minilm(dir.path()).err().expect("no weights");
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
        let err = LocalModel::minilm(dir.path())
            .err()
            .expect("corrupt weights");
        let message = err.to_string();
        assert!(
            matches!(err, Error::InvalidInput(_)) && message.contains(WEIGHTS_FILE),
            "{message}"
        );
    }
}

/// multilingual-e5-small, loaded once for the tests that need it.
fn e5_model() -> Option<&'static LocalModel> {
    static MODEL: OnceLock<LocalModel> = OnceLock::new();
    let file = e5_model_file()?;
    Some(MODEL.get_or_init(|| LocalModel::e5(&file).expect("the fetched e5 model loads")))
}

/// The token ids e5's own package gives these texts (its `tok_content`, with the prefix, then
/// `<s>` and `</s>` around them), English, German, Japanese and Chinese.
#[test]
fn e5_tokens_are_its_packages() {
    let Some(model) = e5_model() else { return };
    let cases: [(&str, Purpose, &[u32]); 4] = [
        (
            "how much protein should a woman eat per day",
            Purpose::Query,
            &[
                41, 1294, 12, 3642, 5045, 21308, 5608, 10, 46667, 73203, 117, 5155,
            ],
        ),
        (
            "Die Katze schläft auf dem Sofa.",
            Purpose::Passage,
            &[
                46692, 12, 622, 7291, 731, 5094, 5781, 2480, 644, 745, 157851, 5,
            ],
        ),
        (
            "猫はソファで寝ています。",
            Purpose::Passage,
            &[
                46692, 12, 6, 35076, 342, 40754, 92014, 507, 51241, 17100, 30,
            ],
        ),
        (
            "我们今天去公园散步",
            Purpose::Passage,
            &[46692, 12, 57818, 7461, 1677, 77493, 188955],
        ),
    ];
    for (text, purpose, content) in cases {
        let mut expected = vec![0];
        expected.extend_from_slice(content);
        expected.push(2);
        assert_eq!(model.encode(text, purpose), expected, "{text}");
    }
}

/// The vectors agree with the package's engine (which rounds activations to 8 bits, so to a few
/// thousandths, not to the last bit), and they carry meaning across languages: a German and a
/// Japanese sentence about a sleeping cat are nearer the English one than an English sentence
/// about revenue is, and a question nearer its answer than a passage on something else.
#[test]
fn e5_vectors_are_its_packages_and_compare_across_languages() {
    let Some(model) = e5_model() else { return };
    let [cat, katze, neko, revenue] = [
        "The cat is sleeping on the couch.",
        "Die Katze schläft auf dem Sofa.",
        "猫はソファで寝ています。",
        "Quarterly revenue rose by 12 percent.",
    ]
    .map(|t| model.embed(&[t], Purpose::Passage).remove(0));
    let start = [
        0.055392, 0.031568, -0.039713, -0.082883, 0.083212, -0.011144,
    ];
    let hello = model.embed(&["Hello world"], Purpose::Passage).remove(0);
    for (got, want) in hello.iter().zip(start) {
        assert!(
            (got - want).abs() < 0.004,
            "{:?} against {start:?}",
            &hello[..6]
        );
    }
    assert!((dot(&hello, &hello) - 1.0).abs() < 1e-5);
    assert!(dot(&cat, &katze) > dot(&cat, &revenue) + 0.05);
    assert!(dot(&cat, &neko) > dot(&cat, &revenue) + 0.05);
    let question = model
        .embed(
            &["how much protein should a woman eat per day"],
            Purpose::Query,
        )
        .remove(0);
    let answer = "As a general guideline, the CDC's average requirement of protein for women \
                  ages 19 to 70 is 46 grams per day.";
    let answer = model.embed(&[answer], Purpose::Passage).remove(0);
    assert!(dot(&question, &answer) > dot(&question, &revenue) + 0.05);
}

#[test]
fn e5_files_that_are_not_the_model_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e5-small-q4.bin");
    let err = LocalModel::e5(&file).err().expect("no file");
    assert!(matches!(err, Error::Io { .. }), "{err}");
    let mut truncated = b"E5S1".to_vec();
    truncated.extend(1u32.to_le_bytes());
    for v in [384i32, 12, 12, 1536, 250_037, 512, 2] {
        truncated.extend(v.to_le_bytes());
    }
    let wrong_shape = {
        let mut b = truncated.clone();
        b[8..12].copy_from_slice(&768i32.to_le_bytes());
        b
    };
    for (bytes, says) in [
        (&b"GGUF...."[..], "E5S1"),
        (&truncated[..], "ends inside"),
        (&wrong_shape[..], "768 wide"),
    ] {
        std::fs::write(&file, bytes).unwrap();
        let err = LocalModel::e5(&file).err().expect("a bad file");
        let message = err.to_string();
        assert!(
            matches!(err, Error::InvalidInput(_)) && message.contains(says),
            "{message}"
        );
    }
}

#[test]
fn the_config_names_a_built_in_model_by_its_name() {
    assert_eq!(Builtin::chosen(Some("multilingual-e5-small")), Builtin::E5);
    assert_eq!(Builtin::chosen(Some(" All-MiniLM-L6-v2 ")), Builtin::MiniLm);
    assert_eq!(Builtin::E5.id(), E5_ID);
    assert_eq!(Builtin::MiniLm.id(), BUILTIN_ID);
}

/// What each installed model costs on this machine: one query's embedding (p50 of 30) and a
/// backfill's pace over 256 passages of about 600 characters. For reading, not asserting:
/// `cargo test --release -p elnor-engine --lib embedding_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn embedding_speed() {
    let passage = "The sync drops rows when the OAuth token refreshes in the middle of a batch; \
                   we retry the batch after the refresh and log the ids that were skipped, so \
                   the next run picks them up. Tests: cargo test -p sync passes, and the \
                   integration run against the staging database shows no missing rows. ";
    let passages: Vec<String> = (0..256)
        .map(|i| {
            format!("{i}: {}", passage.repeat(2))
                .chars()
                .take(600)
                .collect()
        })
        .collect();
    let passages: Vec<&str> = passages.iter().map(String::as_str).collect();
    for (name, model) in [
        ("all-MiniLM-L6-v2", model()),
        ("multilingual-e5-small", e5_model()),
    ] {
        let Some(model) = model else { continue };
        let mut times: Vec<f64> = (0..30)
            .map(|i| {
                let q = format!("why does the sync drop rows after a token refresh {i}");
                let start = std::time::Instant::now();
                model.embed(&[q.as_str()], Purpose::Query);
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let start = std::time::Instant::now();
        model.embed(&passages, Purpose::Passage);
        let pace = passages.len() as f64 / start.elapsed().as_secs_f64();
        println!(
            "{name}: a query {:.1} ms (p50 of 30), passages {pace:.1}/s",
            times[15]
        );
    }
}

/// Not a check: writes the vectors `tests/detect/embedding_trial.py` reads (issue 38's trial of
/// a detector over sentence embeddings), every labelled unit embedded by both built-in models as
/// `<split>.<model>.f32` (little-endian rows of 384) into `$ELNOR_UNITS_OUT`.
///
///     ELNOR_UNITS_OUT=<dir> cargo test --release -p elnor-engine --lib embed_detect_units -- --ignored
#[test]
#[ignore = "writes training inputs for tests/detect/embedding_trial.py; needs both models"]
fn embed_detect_units() {
    let out = std::path::PathBuf::from(
        std::env::var("ELNOR_UNITS_OUT").expect("ELNOR_UNITS_OUT names the folder to write"),
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/detect/units");
    for model in [Builtin::E5, Builtin::MiniLm] {
        let m = model.load().unwrap().unwrap();
        for split in ["dev", "test"] {
            let text = std::fs::read_to_string(root.join(format!("{split}.jsonl"))).unwrap();
            let texts: Vec<String> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["text"].as_str().unwrap_or("").to_owned()
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vs = m.embed(&refs, Purpose::Passage);
            let mut bytes = Vec::new();
            for v in &vs {
                bytes.extend(v.iter().flat_map(|x| x.to_le_bytes()));
            }
            std::fs::write(out.join(format!("{split}.{}.f32", model.name())), bytes).unwrap();
            println!("{split} {} {}", model.name(), vs.len());
        }
    }
}
