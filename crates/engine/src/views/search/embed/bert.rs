//! The network both local models share: a BERT encoder (hidden size 384, 12 heads of 32,
//! feed-forward 1536, erf GELU, post-layer-norm), its forward pass from token ids to one
//! normalised sentence vector, and all-MiniLM-L6-v2's weights read from `model.safetensors`
//! (multilingual-e5-small's come from its own file, in `e5`).
//!
//! The sentence vector is the mean of the last layer's states over every token, the special
//! tokens included, scaled to unit length, which is what both models were trained to give. The
//! matrix products go through `matrixmultiply`; the rest is plain loops over `f32`.
//!
//! Several sequences run as one batch without padding: their token rows are stacked for the
//! position-wise layers, and attention runs per sequence over its own rows, so nothing needs
//! masking and a batch costs only the tokens it holds.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::DIMS;
use super::wordpiece::MAX_TOKENS;
use crate::base::error::{Error, Result};

/// The hidden size, which is also the sentence vector's length.
const HIDDEN: usize = DIMS;
const HEADS: usize = 12;
const HEAD_DIMS: usize = HIDDEN / HEADS;
const FEED_FORWARD: usize = 1536;
/// all-MiniLM-L6-v2's depth (multilingual-e5-small has 12 layers of the same shape).
const MINILM_LAYERS: usize = 6;
/// all-MiniLM-L6-v2's layer-norm epsilon (`layer_norm_eps` in the model's config).
const MINILM_LN_EPS: f32 = 1e-12;

/// A dense layer, `y = x·Wᵀ + b`, with `W` stored as the file has it: `outputs` rows of
/// `inputs`.
pub(super) struct Linear {
    pub(super) weight: Vec<f32>,
    pub(super) bias: Vec<f32>,
    pub(super) inputs: usize,
    pub(super) outputs: usize,
}

/// A layer norm's scale and shift, one of each per hidden unit.
pub(super) struct LayerNorm {
    pub(super) gamma: Vec<f32>,
    pub(super) beta: Vec<f32>,
}

/// One encoder layer: self-attention, then the feed-forward block, each with its residual and
/// layer norm.
pub(super) struct Layer {
    pub(super) query: Linear,
    pub(super) key: Linear,
    pub(super) value: Linear,
    pub(super) attention_out: Linear,
    pub(super) attention_norm: LayerNorm,
    pub(super) up: Linear,
    pub(super) down: Linear,
    pub(super) output_norm: LayerNorm,
}

/// The word-embedding table: plain floats, or 4-bit blocks as multilingual-e5-small's file has
/// them (its 250,000 rows would take 384 MB as floats; a row is unpacked when a token needs it).
pub(super) enum WordTable {
    Dense(Vec<f32>),
    /// Q4_0: per 32 weights, an f16 scale and 16 bytes of nibbles (byte j holds weight j in its
    /// low half and weight j + 16 in its high half), each weight `(nibble - 8) · scale`.
    Q4(Vec<u8>),
}

/// The bytes of one Q4_0 block of 32 weights.
pub(super) const Q4_BLOCK_BYTES: usize = 18;

impl WordTable {
    /// Row `id` of the table, as floats, into `row` (HIDDEN values).
    fn row(&self, id: usize, row: &mut [f32]) {
        match self {
            WordTable::Dense(table) => row.copy_from_slice(&table[id * HIDDEN..][..HIDDEN]),
            WordTable::Q4(blocks) => {
                let per_row = HIDDEN / 32 * Q4_BLOCK_BYTES;
                dequantise_q4(&blocks[id * per_row..][..per_row], row);
            }
        }
    }
}

/// Q4_0 blocks (see [`WordTable::Q4`]) to floats: `out` holds 32 values per block.
pub(super) fn dequantise_q4(blocks: &[u8], out: &mut [f32]) {
    for (block, out) in blocks
        .chunks_exact(Q4_BLOCK_BYTES)
        .zip(out.chunks_exact_mut(32))
    {
        let scale = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        for (j, &byte) in block[2..].iter().enumerate() {
            out[j] = (f32::from(byte & 0x0f) - 8.0) * scale;
            out[j + 16] = (f32::from(byte >> 4) - 8.0) * scale;
        }
    }
}

/// An IEEE half-precision number's value (subnormals, infinities and NaN included).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f32::from(h & 0x03ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// The whole encoder, its weights in memory (about 87 MiB for MiniLM, 150 MiB for e5).
pub(super) struct Encoder {
    pub(super) words: WordTable,
    pub(super) position_embeddings: Vec<f32>,
    /// The first row of the token-type table: every token here is of type 0.
    pub(super) token_type: Vec<f32>,
    pub(super) embedding_norm: LayerNorm,
    pub(super) layers: Vec<Layer>,
    /// Rows in the word-embedding table: every token id must be below this.
    pub(super) vocab_rows: usize,
    /// Rows in the position table: no sequence may be longer.
    pub(super) positions: usize,
    /// The layer norms' epsilon.
    pub(super) eps: f32,
}

/// One tensor's entry in the safetensors header.
#[derive(Deserialize)]
struct TensorInfo {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// A parsed safetensors file: the header's tensors and the data they point into.
struct SafeTensors<'a> {
    tensors: BTreeMap<String, TensorInfo>,
    data: &'a [u8],
    path: &'a Path,
}

impl<'a> SafeTensors<'a> {
    /// Reads the header: an 8-byte little-endian length, that much JSON, then the data.
    fn parse(bytes: &'a [u8], path: &'a Path) -> Result<SafeTensors<'a>> {
        let (len, rest) = bytes
            .split_first_chunk::<8>()
            .ok_or_else(|| corrupt(path, "it is shorter than a safetensors header"))?;
        let len = usize::try_from(u64::from_le_bytes(*len))
            .ok()
            .filter(|&len| len <= rest.len())
            .ok_or_else(|| corrupt(path, "its header length runs past the end of the file"))?;
        let (header, data) = rest.split_at(len);
        let header: BTreeMap<String, serde_json::Value> = serde_json::from_slice(header)
            .map_err(|e| corrupt(path, &format!("its header is not JSON ({e})")))?;
        let mut tensors = BTreeMap::new();
        for (name, info) in header {
            // `__metadata__` is a map of strings, not a tensor.
            if name == "__metadata__" {
                continue;
            }
            let info: TensorInfo = serde_json::from_value(info)
                .map_err(|e| corrupt(path, &format!("tensor `{name}`'s header entry: {e}")))?;
            tensors.insert(name, info);
        }
        Ok(SafeTensors {
            tensors,
            data,
            path,
        })
    }

    /// The tensor `name` as `f32`s, checked to be F32 with the given shape. The file also holds
    /// an I64 `embeddings.position_ids`, which is never asked for.
    fn take(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let info = self
            .tensors
            .get(name)
            .ok_or_else(|| corrupt(self.path, &format!("it has no tensor `{name}`")))?;
        if info.dtype != "F32" || info.shape != shape {
            return Err(corrupt(
                self.path,
                &format!(
                    "tensor `{name}` is {} {:?}, expected F32 {shape:?}",
                    info.dtype, info.shape
                ),
            ));
        }
        let [start, end] = info.data_offsets;
        let bytes = self
            .data
            .get(start..end)
            .filter(|b| Some(b.len()) == shape.iter().product::<usize>().checked_mul(4))
            .ok_or_else(|| {
                corrupt(
                    self.path,
                    &format!("tensor `{name}`'s data offsets do not fit its shape or the file"),
                )
            })?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// The number of rows of a two-dimensional tensor whose rows are `columns` wide, so that
    /// tables whose length the model does not fix (the vocabulary, the positions) can be read
    /// whatever their size.
    fn rows(&self, name: &str, columns: usize) -> Result<usize> {
        match self.tensors.get(name).map(|t| t.shape.as_slice()) {
            Some(&[rows, c]) if c == columns => Ok(rows),
            Some(shape) => Err(corrupt(
                self.path,
                &format!("tensor `{name}` is {shape:?}, expected [_, {columns}]"),
            )),
            None => Err(corrupt(self.path, &format!("it has no tensor `{name}`"))),
        }
    }

    fn linear(&self, prefix: &str, inputs: usize, outputs: usize) -> Result<Linear> {
        Ok(Linear {
            weight: self.take(&format!("{prefix}.weight"), &[outputs, inputs])?,
            bias: self.take(&format!("{prefix}.bias"), &[outputs])?,
            inputs,
            outputs,
        })
    }

    fn layer_norm(&self, prefix: &str) -> Result<LayerNorm> {
        Ok(LayerNorm {
            gamma: self.take(&format!("{prefix}.weight"), &[HIDDEN])?,
            beta: self.take(&format!("{prefix}.bias"), &[HIDDEN])?,
        })
    }
}

/// The error for a weights file that is not the model's: it names the file and what is wrong.
fn corrupt(path: &Path, problem: &str) -> Error {
    Error::InvalidInput(format!(
        "model weights {}: {problem}; it is not a usable all-MiniLM-L6-v2 model.safetensors \
         (fetch it again: scripts/setup.sh test does)",
        path.display()
    ))
}

impl Encoder {
    /// Builds the encoder from the bytes of `model.safetensors`; `path` only names the file in
    /// errors. Every tensor's type and shape is checked here, so the forward pass can index
    /// without checks of its own.
    pub(super) fn from_safetensors(bytes: &[u8], path: &Path) -> Result<Encoder> {
        let file = SafeTensors::parse(bytes, path)?;
        let vocab_rows = file.rows("embeddings.word_embeddings.weight", HIDDEN)?;
        let positions = file.rows("embeddings.position_embeddings.weight", HIDDEN)?;
        if positions < MAX_TOKENS {
            return Err(corrupt(
                path,
                &format!("it has {positions} positions, fewer than the {MAX_TOKENS} it needs"),
            ));
        }
        let token_types = file.take("embeddings.token_type_embeddings.weight", &[2, HIDDEN])?;
        let layers = (0..MINILM_LAYERS)
            .map(|l| {
                let p = format!("encoder.layer.{l}");
                Ok(Layer {
                    query: file.linear(&format!("{p}.attention.self.query"), HIDDEN, HIDDEN)?,
                    key: file.linear(&format!("{p}.attention.self.key"), HIDDEN, HIDDEN)?,
                    value: file.linear(&format!("{p}.attention.self.value"), HIDDEN, HIDDEN)?,
                    attention_out: file.linear(
                        &format!("{p}.attention.output.dense"),
                        HIDDEN,
                        HIDDEN,
                    )?,
                    attention_norm: file.layer_norm(&format!("{p}.attention.output.LayerNorm"))?,
                    up: file.linear(&format!("{p}.intermediate.dense"), HIDDEN, FEED_FORWARD)?,
                    down: file.linear(&format!("{p}.output.dense"), FEED_FORWARD, HIDDEN)?,
                    output_norm: file.layer_norm(&format!("{p}.output.LayerNorm"))?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Encoder {
            words: WordTable::Dense(
                file.take("embeddings.word_embeddings.weight", &[vocab_rows, HIDDEN])?,
            ),
            position_embeddings: file.take(
                "embeddings.position_embeddings.weight",
                &[positions, HIDDEN],
            )?,
            token_type: token_types[..HIDDEN].to_vec(),
            embedding_norm: file.layer_norm("embeddings.LayerNorm")?,
            layers,
            vocab_rows,
            positions,
            eps: MINILM_LN_EPS,
        })
    }

    /// Rows in the word-embedding table, so the loader can check the vocabulary against it.
    pub(super) fn vocab_rows(&self) -> usize {
        self.vocab_rows
    }

    /// The unit-length sentence vector of each sequence of token ids. Every id must be below
    /// [`Encoder::vocab_rows`] and every sequence at most [`Encoder::positions`] long; the
    /// tokenizer's output is, once the loader has checked the vocabulary against the table.
    ///
    /// With `split`, each dense layer of a short batch (a query's few tokens) runs on two
    /// threads, half the outputs each: a query is one sequence, so the batch workers cannot share
    /// it, and its cost is streaming the weights, which two cores do in half the time.
    pub(super) fn embed(&self, seqs: &[Vec<u32>], split: bool) -> Vec<Vec<f32>> {
        let tokens: usize = seqs.iter().map(Vec::len).sum();
        if tokens == 0 {
            return seqs.iter().map(|_| vec![0.0; HIDDEN]).collect();
        }
        let mut x = self.embeddings(seqs, tokens);
        let threads = if split && tokens <= SPLIT_ROWS { 2 } else { 1 };
        for layer in &self.layers {
            x = self.layer(layer, &x, seqs, tokens, threads);
        }
        mean_pool(&x, seqs)
    }

    /// Word, position and token-type embeddings summed for every token, then normalised.
    fn embeddings(&self, seqs: &[Vec<u32>], tokens: usize) -> Vec<f32> {
        let mut x = Vec::with_capacity(tokens * HIDDEN);
        let mut word = [0f32; HIDDEN];
        for seq in seqs {
            for (position, &id) in seq.iter().enumerate() {
                self.words.row(id as usize, &mut word);
                let pos = &self.position_embeddings[position * HIDDEN..][..HIDDEN];
                x.extend((0..HIDDEN).map(|j| word[j] + pos[j] + self.token_type[j]));
            }
        }
        layer_norm(&mut x, &self.embedding_norm, self.eps);
        x
    }

    /// One encoder layer over the stacked token rows `x`.
    fn layer(
        &self,
        layer: &Layer,
        x: &[f32],
        seqs: &[Vec<u32>],
        tokens: usize,
        threads: usize,
    ) -> Vec<f32> {
        let linear = |x: &[f32], l: &Linear| linear(x, tokens, l, threads);
        let q = linear(x, &layer.query);
        let k = linear(x, &layer.key);
        let v = linear(x, &layer.value);
        let context = attention(&q, &k, &v, seqs);
        let mut a = linear(&context, &layer.attention_out);
        a.iter_mut().zip(x).for_each(|(a, x)| *a += x);
        layer_norm(&mut a, &layer.attention_norm, self.eps);
        let mut up = linear(&a, &layer.up);
        up.iter_mut().for_each(|u| *u = gelu(*u));
        let mut out = linear(&up, &layer.down);
        out.iter_mut().zip(&a).for_each(|(o, a)| *o += a);
        layer_norm(&mut out, &layer.output_norm, self.eps);
        out
    }
}

/// Scaled dot-product attention, each sequence over its own rows and each head over its own 32
/// columns: `softmax(q·kᵀ / √32)·v`.
fn attention(q: &[f32], k: &[f32], v: &[f32], seqs: &[Vec<u32>]) -> Vec<f32> {
    let scale = 1.0 / (HEAD_DIMS as f32).sqrt();
    let mut context = vec![0f32; q.len()];
    let mut first_row = 0;
    let mut scores = Vec::new();
    for seq in seqs {
        let n = seq.len();
        if n == 0 {
            continue;
        }
        scores.resize(n * n, 0.0);
        for head in 0..HEADS {
            // The head's block starts at the sequence's first row and the head's first column;
            // rows are HIDDEN apart in all of q, k, v and the context.
            let at = first_row * HIDDEN + head * HEAD_DIMS;
            // scores (n×n) = scale · q_head (n×32) · k_headᵀ (32×n)
            gemm(
                [n, HEAD_DIMS, n],
                scale,
                (&q[at..], HIDDEN, 1),
                (&k[at..], 1, HIDDEN),
                0.0,
                (&mut scores, n),
            );
            for row in scores.chunks_exact_mut(n) {
                softmax(row);
            }
            // context_head (n×32) = scores (n×n) · v_head (n×32)
            gemm(
                [n, n, HEAD_DIMS],
                1.0,
                (&scores, n, 1),
                (&v[at..], HIDDEN, 1),
                0.0,
                (&mut context[at..], HIDDEN),
            );
        }
        first_row += n;
    }
    context
}

/// The most tokens a batch may have for its dense layers to be split between two threads: past
/// it the batch is a backfill's, whose workers already keep both cores busy.
const SPLIT_ROWS: usize = 64;

/// `x·Wᵀ + b` for `rows` rows of `x`, on `threads` threads (1 or 2), each computing a contiguous
/// half of the outputs.
fn linear(x: &[f32], rows: usize, l: &Linear, threads: usize) -> Vec<f32> {
    if threads < 2 || l.outputs < 2 {
        return outputs(x, rows, l, 0..l.outputs);
    }
    let half = l.outputs / 2;
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| outputs(x, rows, l, half..l.outputs));
        let first = outputs(x, rows, l, 0..half);
        (
            first,
            second
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    let mut y = Vec::with_capacity(rows * l.outputs);
    for (a, b) in first
        .chunks_exact(half)
        .zip(second.chunks_exact(l.outputs - half))
    {
        y.extend_from_slice(a);
        y.extend_from_slice(b);
    }
    y
}

/// The outputs `columns` of `x·Wᵀ + b`: `rows` rows of `columns.len()` values.
fn outputs(x: &[f32], rows: usize, l: &Linear, columns: std::ops::Range<usize>) -> Vec<f32> {
    let n = columns.len();
    let mut y = Vec::with_capacity(rows * n);
    for _ in 0..rows {
        y.extend_from_slice(&l.bias[columns.clone()]);
    }
    // W is stored `outputs` rows of `inputs`, so Wᵀ is read with the strides swapped; the
    // columns wanted are W's rows from `columns.start` on.
    gemm(
        [rows, l.inputs, n],
        1.0,
        (x, l.inputs, 1),
        (&l.weight[columns.start * l.inputs..], 1, l.inputs),
        1.0,
        (&mut y, n),
    );
    y
}

/// `c = alpha·a·b + beta·c` for an `m×k` matrix `a`, a `k×n` matrix `b` and an `m×n` matrix `c`,
/// each given as a slice with its row and column strides (`c`'s columns are adjacent). This is
/// the one place `matrixmultiply` is called, and it checks that every element the product
/// touches lies inside its slice, which is what makes the call sound.
fn gemm(
    [m, k, n]: [usize; 3],
    alpha: f32,
    (a, a_row, a_col): (&[f32], usize, usize),
    (b, b_row, b_col): (&[f32], usize, usize),
    beta: f32,
    (c, c_row): (&mut [f32], usize),
) {
    if m == 0 || k == 0 || n == 0 {
        return;
    }
    let last = |rows: usize, cols: usize, rs: usize, cs: usize| (rows - 1) * rs + (cols - 1) * cs;
    assert!(last(m, k, a_row, a_col) < a.len(), "gemm: a is too short");
    assert!(last(k, n, b_row, b_col) < b.len(), "gemm: b is too short");
    assert!(last(m, n, c_row, 1) < c.len(), "gemm: c is too short");
    let stride = |s: usize| isize::try_from(s).expect("a stride fits in isize");
    // SAFETY: the asserts above put every element `sgemm` reads or writes inside the slices,
    // `c` is borrowed mutably and so overlaps neither `a` nor `b`, and no stride overflows.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr(),
            stride(a_row),
            stride(a_col),
            b.as_ptr(),
            stride(b_row),
            stride(b_col),
            beta,
            c.as_mut_ptr(),
            stride(c_row),
            1,
        );
    }
}

/// Normalises each row of HIDDEN values to mean 0 and variance 1, then scales and shifts it.
fn layer_norm(x: &mut [f32], norm: &LayerNorm, eps: f32) {
    for row in x.chunks_exact_mut(HIDDEN) {
        let mean = row.iter().sum::<f32>() / HIDDEN as f32;
        let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / HIDDEN as f32;
        let inverse = 1.0 / (variance + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
            *v = (*v - mean) * inverse * g + b;
        }
    }
}

/// The softmax of one row of attention scores, in place; the row's maximum is taken out first so
/// that `exp` cannot overflow.
fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in row.iter_mut() {
        *v /= sum;
    }
}

/// The exact (erf) GELU the model was trained with, `x·Φ(x)`; the tanh approximation moves the
/// outputs by about 1e-4, more than the tests allow. Computed in f64 so that the approximation of
/// erf below, not rounding, sets the error.
fn gelu(x: f32) -> f32 {
    let x = f64::from(x);
    (0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))) as f32
}

/// erf through the Chebyshev fit of erfc in Numerical Recipes (`erfcc`), relative error below
/// 1.2e-7 everywhere: the standard library has no erf, and this is well inside f32's precision.
fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * (-z * z + poly).exp();
    if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }
}

/// The mean of each sequence's rows, scaled to unit length (a zero vector stays zero).
fn mean_pool(x: &[f32], seqs: &[Vec<u32>]) -> Vec<Vec<f32>> {
    let mut out = Vec::with_capacity(seqs.len());
    let mut rows = x.chunks_exact(HIDDEN);
    for seq in seqs {
        let mut sum = vec![0f32; HIDDEN];
        for row in rows.by_ref().take(seq.len()) {
            sum.iter_mut().zip(row).for_each(|(s, v)| *s += v);
        }
        // The mean's 1/n cancels in the normalisation, but is kept so the arithmetic is the
        // reference's (mean, then divide by the norm clamped at 1e-12) to the last bit it can be.
        let n = seq.len().max(1) as f32;
        sum.iter_mut().for_each(|s| *s /= n);
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        sum.iter_mut().for_each(|s| *s /= norm);
        out.push(sum);
    }
    out
}
