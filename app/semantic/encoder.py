"""The sentence encoder, all-MiniLM-L6-v2, run in numpy: text -> a unit vector of 384.

Why numpy and not torch: the model is a 6-layer BERT of 22M weights; its forward pass is
a dozen matrix products per layer, which numpy's BLAS runs as fast as torch on a CPU,
without a 700 MB dependency. What the model card's pipeline does, done here step by step:
WordPiece tokens ([CLS] ... [SEP], at most 256), embeddings (word + position + type,
LayerNorm), 6 layers of self-attention (12 heads of 32) and a GELU feed-forward (1536),
each followed by a residual LayerNorm (eps 1e-12); then the mean of the token vectors
over the attention mask, L2-normalised (so a dot product is the cosine).

Texts are batched by similar token length, so padding costs little; every computation is
float32.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ccarchive.semantic.space import DIM

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MAX_TOKENS = 256
"""The model's sequence length in training (sentence_bert_config.json): longer texts are cut."""
HEADS = 12
LAYER_NORM_EPS = 1e-12
BATCH_TOKENS = 2048
"""Tokens per batch (texts x padded length: 8 texts of 256): large enough for the matrix
products to run at full speed, small enough that a batch's activations stay small (its
attention scores, batch x 12 x len x len floats, are 25 MB; onnxruntime's arena keeps
the largest batch's). Building the vectors of a 30 MB archive peaked at 311 MB of RSS,
against 635 MB with batches of 8,192 tokens. Their speed was alike within the noise of
the loaded machine they were measured on (that build 192 s against 311 s; 32 texts
1.36 against 1.72 texts/s, the medians of three runs each): not measured quiet."""


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    x = x - mean
    var = np.square(x).mean(-1, keepdims=True)
    return x / np.sqrt(var + LAYER_NORM_EPS) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x) (not the tanh approximation), with erf to float32
    precision (Abramowitz & Stegun 7.1.26: 1.5e-7 off at worst): numpy has no erf and
    scipy is not a dependency. Written in place: on a batch the feed-forward activations
    are 50 MB, and a pass that allocates costs as much as the arithmetic."""
    a = np.abs(x) * np.float32(1 / math.sqrt(2))  # erf(|x| / sqrt 2)
    t = a * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    r = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        r += np.float32(c)
        r *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    r *= a  # 1 - erf(|x| / sqrt 2)
    r *= 0.5  # Phi(-|x|)
    # Phi(x) = 1 - Phi(-|x|) for x >= 0, Phi(-|x|) below
    return x * np.where(x >= 0, 1.0 - r, r)


class _Layer:
    """One transformer layer's weights, laid out for `x @ W` (query, key, value fused)."""

    def __init__(self, w: dict[str, np.ndarray], i: int) -> None:
        p = f"encoder.layer.{i}."
        a = p + "attention."
        self.qkv_w = np.concatenate(
            [w[a + f"self.{n}.weight"] for n in ("query", "key", "value")]
        ).T.copy()
        self.qkv_b = np.concatenate([w[a + f"self.{n}.bias"] for n in ("query", "key", "value")])
        self.out_w = w[a + "output.dense.weight"].T.copy()
        self.out_b = w[a + "output.dense.bias"]
        self.ln1 = (w[a + "output.LayerNorm.weight"], w[a + "output.LayerNorm.bias"])
        self.ff_w = w[p + "intermediate.dense.weight"].T.copy()
        self.ff_b = w[p + "intermediate.dense.bias"]
        self.ff2_w = w[p + "output.dense.weight"].T.copy()
        self.ff2_b = w[p + "output.dense.bias"]
        self.ln2 = (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])

    def __call__(self, x: np.ndarray, bias: np.ndarray) -> np.ndarray:
        b, n, d = x.shape
        hd = d // HEADS
        qkv = (x @ self.qkv_w + self.qkv_b).reshape(b, n, 3, HEADS, hd)
        q = qkv[:, :, 0].transpose(0, 2, 1, 3)  # (b, heads, n, hd)
        k = qkv[:, :, 1].transpose(0, 2, 3, 1)  # (b, heads, hd, n)
        v = qkv[:, :, 2].transpose(0, 2, 1, 3)
        scores = (q @ k) * np.float32(1 / math.sqrt(hd)) + bias  # bias: (b, 1, 1, n)
        scores -= scores.max(-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b, n, d)
        x = _layer_norm(x + ctx @ self.out_w + self.out_b, *self.ln1)
        h = _gelu(x @ self.ff_w + self.ff_b)
        return _layer_norm(x + h @ self.ff2_w + self.ff2_b, *self.ln2)


def load_tokenizer(model_dir: Path, max_tokens: int) -> Tokenizer:
    """The model's WordPiece tokenizer (`tokenizer.json`), unpadded (the file pads every
    text to 128; an encoder pads its own batches, or needs no padding) and cutting texts
    at `max_tokens`."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_tokens)
    return tok


class TokenBatches:
    """What both forward passes of the model share: the tokenizer (thread-safe behind a
    lock: `Tokenizer.encode_batch` runs its own thread pool), and texts encoded in batches
    of similar length, at most `BATCH_TOKENS` padded tokens each. A subclass gives
    `_forward`, one padded batch to unit vectors."""

    def _load_tokenizer(self, model_dir: Path) -> None:
        self.tokenizer = load_tokenizer(model_dir, MAX_TOKENS)
        self._lock = threading.Lock()

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids, [CLS] ... [SEP], cut at `MAX_TOKENS`."""
        with self._lock:
            return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (len(texts) x 384, float32), in the order of `texts`."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and len(ids[order[end]]) * (end + 1 - start) <= BATCH_TOKENS:
                end += 1
            batch = order[start:end]
            out[batch] = self._forward([ids[i] for i in batch])
            start = end
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        raise NotImplementedError


class Encoder(TokenBatches):
    """all-MiniLM-L6-v2 from its folder (`model.safetensors`, `tokenizer.json`).

    Thread-safe: `encode` may be called from the query path and the vector builder at
    once (the tokenizer object is shared read-only; numpy arrays are never written).
    """

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file

        self.model_dir = Path(model_dir)
        w = load_file(str(self.model_dir / "model.safetensors"))
        w = {k.removeprefix("bert."): v for k, v in w.items()}
        self.word = w["embeddings.word_embeddings.weight"]
        self.pos = w["embeddings.position_embeddings.weight"]
        self.type0 = w["embeddings.token_type_embeddings.weight"][0]
        self.ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n_layers = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))
        self.layers = [_Layer(w, i) for i in range(n_layers)]
        if self.word.shape[1] != DIM:
            raise ValueError(f"{model_dir}: hidden size {self.word.shape[1]}, expected {DIM}")
        self._load_tokenizer(self.model_dir)

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n = max(len(t) for t in batch)
        ids = np.zeros((len(batch), n), dtype=np.int64)
        mask = np.zeros((len(batch), n), dtype=np.float32)
        for i, t in enumerate(batch):
            ids[i, : len(t)] = t
            mask[i, : len(t)] = 1.0
        x = self.word[ids] + self.pos[:n] + self.type0
        x = _layer_norm(x, *self.ln)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in self.layers:
            x = layer(x, bias)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norm, 1e-12)
