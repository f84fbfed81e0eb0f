"""The ``steady`` family (byteSteady-style): hashed byte n-grams -> masked mean -> linear heads.

Every contiguous n-gram (for the configured n) is hashed with integer arithmetic that torch, numpy
and ONNX compute identically: a polynomial rolling hash modulo 2**31, mixed per n by a
multiply-shift whose top bits pick one of the tier's (power-of-two many) buckets. Values stay below
2**62, so int64 never overflows; the ONNX graph uses Mod/Div where training uses fast bit ops.
Tiers are nested twice: a tier hashes into the first ``buckets[tier]`` rows of one table and reads
the first ``dims[tier]`` columns, so tiny is a true prefix of pro.

Training sums rows as bucket counts times the table (no sort, no ``[B, N, D]`` tensor); export
switches to gather + matmul (``use_bag = False``), which exports cleanly. Both are the same sum.
Optionally (``arch.local_ngrams`` / ``shape_ngrams`` / ``token_lengths``) a local detector sits
beside the mean: the embeddings of the n-grams starting at each byte (raw bytes, byte-class
"shapes", and at a token's first byte its length) are summed per position, passed through one ReLU layer and max-pooled, so a
single secret or address in a long file still moves the features. Its output is concatenated to
the mean before the heads (or read by the ``local_heads`` only). Optionally
(``arch.position_heads``) the positional n-grams also form a mean of their own that only the
format heads read, so the heads that name languages keep the plain mean.

What it does not do: tokenise (n-grams are over raw bytes) or read files.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from picohead.models.config import SteadyConfig
from picohead.models.nested import SlimLinear, TierHeads
from picohead_runtime.spec import SpecError

MASK31 = 2**31 - 1  # hashes live in [0, 2**31)
BASE = 1_000_003  # odd multiplier of the rolling polynomial hash
MAX_N = 16
POS_KEY = 0x2545F491  # mixes an n-gram's offset into its positional hash
EXPORT_BAG_ROWS = 8192  # export sums per bucket up to this many rows, gathers above


def _mult(n: int) -> int:
    """Odd per-n multiplier (< 2**31) for multiply-shift mixing, so equal hashes of different n part."""
    return (2_654_435_761 * (2 * n + 1)) & MASK31 | 1


def _wrapper(exact_ops: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    """``x mod 2**31`` as ONNX-exportable ``%`` (``exact_ops``) or the faster ``&`` (same bits)."""
    if exact_ops:
        return lambda x: x % (MASK31 + 1)
    return lambda x: x & MASK31


def _rolling(
    ids: torch.Tensor, ngrams: tuple[int, ...], wrap: Callable[[torch.Tensor], torch.Tensor]
) -> Iterator[tuple[int, torch.Tensor]]:
    """``(n, h_n)`` for each n in ``ngrams``: the unmixed rolling hashes ``[B, L - n + 1]`` of the
    n-grams starting at each position, ``h_n = (h_{n-1} * BASE + id) mod 2**31``."""
    h = ids
    for n in range(1, max(ngrams) + 1):
        if n > 1:
            h = wrap(h[:, :-1] * BASE + ids[:, n - 1 :])
        if n in ngrams:
            yield n, h


def ngram_hashes(
    data: torch.Tensor,
    lengths: torch.Tensor,
    ngrams: tuple[int, ...],
    *,
    positions: int = 0,
    position_share: float = 0.0,
    split: bool = False,
    exact_ops: bool = False,
) -> tuple[torch.Tensor, ...]:
    """31-bit hashes ``[B, N]`` (int64) of every n-gram, and float weights (0 for invalid ones).

    ``h_n = (h_{n-1} * BASE + byte + 1) mod 2**31``, then ``(h_n * mult_n) mod 2**31``. The n-grams
    starting in the first ``positions`` bytes are hashed a second time together with their offset
    (magic numbers live at fixed offsets); those weigh ``position_share`` of the mean in total, so
    a long file does not dilute them. With ``split`` the positional hashes and their 0/1 validity
    ``[B, P]`` are returned as well (a mean of their own, see ``arch.position_heads``). With
    ``exact_ops`` the modulo is written as ``%`` (ONNX Mod) instead of ``&``; for these
    non-negative values both give the same bits.
    """
    ids = data.long() + 1  # 1..256, so a zero byte still moves the hash
    pos = torch.arange(data.shape[1], device=data.device).unsqueeze(0)
    limit = lengths.unsqueeze(1)

    wrap = _wrapper(exact_ops)
    out_h, out_mask, pos_h, pos_mask = [], [], [], []
    for n, h in _rolling(ids, ngrams, wrap):
        out_h.append(wrap(h * _mult(n)))
        out_mask.append(pos[:, : h.shape[1]] <= (limit - n))
        if positions:
            head = h[:, :positions]
            p = pos[:, : head.shape[1]]
            pos_h.append(wrap(wrap(head + (p + 1) * POS_KEY) * _mult(n + MAX_N)))
            pos_mask.append(p <= (limit - n))
    hashes = torch.cat(out_h, dim=1)
    weights = torch.cat(out_mask, dim=1).to(torch.float32)
    ph = torch.cat(pos_h, dim=1) if pos_h else hashes[:, :0]
    pv = torch.cat(pos_mask, dim=1).to(torch.float32) if pos_mask else weights[:, :0]
    if ph.shape[1] and position_share > 0:
        n_reg = weights.sum(1, keepdim=True)
        scale = (
            position_share / (1 - position_share) * n_reg / pv.sum(1, keepdim=True).clamp(min=1.0)
        )
        hashes, weights = torch.cat((hashes, ph), dim=1), torch.cat((weights, pv * scale), dim=1)
    return (hashes, weights, ph, pv) if split else (hashes, weights)


@functools.lru_cache(maxsize=32)
def _coefficients(ngrams: tuple[int, ...], salt: int, width: int) -> np.ndarray:
    """Float64 ``[K, width]``: row ``k`` weighs byte ``i + j`` of the ``ngrams[k]``-gram at ``i`` by
    ``BASE ** (n - 1 - j) * mult(n + salt) mod 2**31``, so ``(row . window) mod 2**31`` is the
    n-gram's mixed rolling hash (all constants below 2**31)."""
    m = MASK31 + 1
    coef = np.zeros((len(ngrams), width), dtype=np.float64)
    for k, n in enumerate(ngrams):
        for j in range(n):
            coef[k, j] = pow(BASE, n - 1 - j, m) * _mult(n + salt) % m
    return coef


@functools.lru_cache(maxsize=16)
def _fused_coefficients(
    ngrams: tuple[int, ...], positions: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float64 constants of :func:`ngram_hashes_fused`: ``[K, maxn]`` byte coefficients of the
    plain and positional hashes and the ``[K, positions]`` offset terms (all below 2**31)."""
    m = MASK31 + 1
    maxn = max(ngrams)
    offs = np.zeros((len(ngrams), positions), dtype=np.float64)
    for k, n in enumerate(ngrams):
        for p in range(positions):
            offs[k, p] = (p + 1) * POS_KEY % m * _mult(n + MAX_N) % m
    return _coefficients(ngrams, 0, maxn), _coefficients(ngrams, MAX_N, maxn), offs


def ngram_hashes_fused(
    data: torch.Tensor,
    lengths: torch.Tensor,
    ngrams: tuple[int, ...],
    *,
    positions: int = 0,
    position_share: float = 0.0,
    split: bool = False,
) -> tuple[torch.Tensor, ...]:
    """The same hashes and weights as :func:`ngram_hashes` (as exact float64 integers), as
    ``[B, K, L + P]`` (one row per n: its plain then its positional n-grams) and with extra
    zero-weight entries: the export path, ~25 ONNX nodes instead of ~130.

    The rolling hash is a polynomial modulo 2**31, so every hash (plain, and positional with its
    offset term) is ``(sum_j byte[i + j] * c_j) mod 2**31`` with constants ``c_j < 2**31``: one
    float64 MatMul of a ``[K, max n]`` matrix with the ``[B, max n, L]`` byte windows and one Mod.
    Every partial sum is an integer below 2**44, so float64 computes it exactly in any order.
    The windows and the validity of each n-gram come from one float32 Conv with 0/1 kernels
    (exact: each output is one input value), which onnxruntime runs as one small GEMM; index
    arithmetic, a Gather of every window byte and a broadcast comparison cost ~3x more.
    Entries for n-grams that do not fit (past the row's length) get weight 0.
    """
    plain, posc, offs = (
        torch.from_numpy(a).to(data.device) for a in _fused_coefficients(tuple(ngrams), positions)
    )
    win, valid = conv_windows([data.to(torch.float32) + 1], lengths, (max(ngrams),), ngrams)
    hashes = _wrap_float(torch.matmul(plain, win))  # [B, K, L]
    if not (positions and (split or position_share > 0)):  # no positional hash is read
        return (hashes, valid, hashes[:, :, :0], valid[:, :, :0]) if split else (hashes, valid)
    head = win[:, :, :positions]  # [B, maxn, P], P = min(positions, L)
    ph = _wrap_float(torch.matmul(posc, head) + offs[:, : head.shape[2]])  # [B, K, P]
    pv = valid[:, :, :positions]
    out_h, out_w = hashes, valid
    if position_share > 0:
        n_reg = valid.sum((1, 2), keepdim=True)
        scale = (
            position_share
            / (1 - position_share)
            * n_reg
            / pv.sum((1, 2), keepdim=True).clamp(min=1.0)
        )
        out_h, out_w = torch.cat((hashes, ph), dim=2), torch.cat((valid, pv * scale), dim=2)
    return (out_h, out_w, ph, pv) if split else (out_h, out_w)


def _wrap_float(x: torch.Tensor) -> torch.Tensor:
    """``x mod 2**31`` for exact float64 integers (ONNX's float Mod is slow)."""
    return x - torch.floor(x * 2.0**-31) * 2.0**31


@functools.lru_cache(maxsize=16)
def _window_kernel(spans: tuple[int, ...], checks: tuple[int, ...]) -> np.ndarray:
    """0/1 Conv weights ``[sum(spans) + len(checks), len(spans) + 1, width]``: for data channel
    ``c``, outputs copy its bytes ``i .. i + spans[c] - 1``; then one output per ``n`` in
    ``checks`` copies the inside-the-row flag (the last channel) of byte ``i + n - 1``. Cached as
    numpy (a cached tensor could be a fake one from an export trace)."""
    width = max((*spans, *checks))
    w = np.zeros((sum(spans) + len(checks), len(spans) + 1, width), dtype=np.float32)
    row = 0
    for c, span in enumerate(spans):
        for j in range(span):
            w[row, c, j] = 1.0
            row += 1
    for k, n in enumerate(checks):
        w[row + k, len(spans), n - 1] = 1.0
    return w


def conv_windows(
    chans: list[torch.Tensor],
    lengths: torch.Tensor,
    spans: tuple[int, ...],
    checks: tuple[int, ...],
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sliding windows of float32 id channels ``[B, L]`` as float64 ``[B, sum(spans), L]`` (the
    ``spans[c]`` ids of channel ``c`` starting at each position, 0 past the end) and float32
    ``[B, len(checks), L]`` validity (1 where an n-gram of each ``n`` in ``checks`` starting
    there ends inside the row).

    One float32 Conv with 0/1 kernels (exact: every output is one input value), which
    onnxruntime runs as one small GEMM; index arithmetic, a Gather of every window byte and a
    broadcast comparison per n-gram kind cost ~3x more. The export path only.
    """
    width = chans[0].shape[1]
    pos = torch.arange(width, device=chans[0].device)
    inside = (pos.unsqueeze(0) < lengths.unsqueeze(1)).to(torch.float32)  # [B, L]
    kernel = torch.from_numpy(_window_kernel(tuple(spans), tuple(checks))).to(chans[0].device)
    x = F.pad(torch.stack((*chans, inside), dim=1), (0, kernel.shape[2] - 1))
    out = F.conv1d(x, kernel)
    n_win = sum(spans)
    return out[:, :n_win].to(torch.float64), out[:, n_win:]


def aligned_hashes_fused(
    chans: list[torch.Tensor],
    lengths: torch.Tensor,
    groups: list[tuple[tuple[int, ...], int]],
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`aligned_hashes` for several id channels at once, as one Conv and one float64
    MatMul (the export path): ``groups[c] = (ngrams, salt)`` for float32 channel ``chans[c]``
    (ids + 1). Returns float64 hashes ``[K, B, L]`` (K = all n-grams, in group order) and
    validity; hashes past a row's end are arbitrary and invalid."""
    spans = tuple(max(ng) for ng, _ in groups)
    checks = tuple(n for ng, _ in groups for n in ng)
    win, valid = conv_windows(chans, lengths, spans, checks)
    coef = np.zeros((len(checks), sum(spans)), dtype=np.float64)  # block-diagonal per channel
    k, offset = 0, 0
    for (ng, salt), span in zip(groups, spans):
        coef[k : k + len(ng), offset : offset + span] = _coefficients(tuple(ng), salt, span)
        k, offset = k + len(ng), offset + span
    h = _wrap_float(torch.matmul(torch.from_numpy(coef).to(win.device), win))  # [B, K, L]
    return h.transpose(0, 1), valid.transpose(0, 1) > 0


def buckets_of(h: torch.Tensor, buckets: int, *, exact_ops: bool = False) -> torch.Tensor:
    """Multiply-shift reduction: the top ``log2(buckets)`` bits of a 31-bit hash."""
    shift = 31 - (buckets.bit_length() - 1)
    if exact_ops:
        # An int64 floor-division exports as a float32 Div (24-bit mantissa) that moves some hashes
        # into the next bucket; float64 holds every 31-bit hash exactly and /2**shift is exact.
        return torch.floor(h.to(torch.float64) / 2**shift).to(torch.int64)
    return h >> shift


def ngram_buckets_np(
    data: np.ndarray,
    lengths: np.ndarray,
    ngrams: tuple[int, ...],
    buckets: int,
    *,
    positions: int = 0,
    position_share: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The numpy twin of :func:`ngram_hashes` + :func:`buckets_of` (tests check bit equality)."""
    ids = data.astype(np.int64) + 1
    pos = np.arange(data.shape[1])[None, :]
    limit = lengths[:, None]
    shift = 31 - (buckets.bit_length() - 1)
    h = ids
    out_h, out_m, pos_h, pos_m = [], [], [], []
    for n in range(1, max(ngrams) + 1):
        if n > 1:
            h = (h[:, :-1] * BASE + ids[:, n - 1 :]) & MASK31
        if n in ngrams:
            out_h.append((h * _mult(n)) & MASK31)
            out_m.append(pos[:, : h.shape[1]] <= (limit - n))
            if positions:
                head = h[:, :positions]
                p = pos[:, : head.shape[1]]
                pos_h.append((((head + (p + 1) * POS_KEY) & MASK31) * _mult(n + MAX_N)) & MASK31)
                pos_m.append(p <= (limit - n))
    hashes = np.concatenate(out_h, axis=1)
    weights = np.concatenate(out_m, axis=1).astype(np.float32)
    if positions and position_share > 0:
        pw = np.concatenate(pos_m, axis=1).astype(np.float32)
        n_reg = weights.sum(1, keepdims=True)
        scale = (
            np.float32(position_share / (1 - position_share))
            * n_reg
            / np.maximum(pw.sum(1, keepdims=True), 1.0)
        )
        hashes = np.concatenate((hashes, np.concatenate(pos_h, axis=1)), axis=1)
        weights = np.concatenate((weights, pw * scale), axis=1)
    return hashes >> shift, weights


# Byte classes of the detector's "shape" n-grams: a-z -> 'a', A-Z -> 'A', 0-9 -> '0', bytes >= 128
# -> 0x80, tab -> space; every other byte (punctuation, '@', '-', newline, ...) stays itself.
_SHAPE = np.arange(256, dtype=np.uint8)  # uint8: 256 bytes in the ONNX file, not 2 KB
_SHAPE[ord("a") : ord("z") + 1] = ord("a")
_SHAPE[ord("A") : ord("Z") + 1] = ord("A")
_SHAPE[ord("0") : ord("9") + 1] = ord("0")
_SHAPE[128:] = 128
_SHAPE[ord("\t")] = ord(" ")
SHAPE_MAP = _SHAPE

# Byte classes of the detector's token lengths: token bytes ([A-Za-z0-9_-]) -> 'w', whitespace ->
# ' ', bytes >= 128 -> 128, every other byte (punctuation, control bytes) -> '.'.
_WORD = np.full(256, ord("."), dtype=np.uint8)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-":
    _WORD[_c] = ord("w")
for _c in b" \t\n\r\v\f":
    _WORD[_c] = ord(" ")
_WORD[128:] = 128
WORD_MAP = _WORD
WORD_EDGE = ord(" ")  # the class read before the input's first byte and after its last
_TOKEN = ord("w")
_LONG = 3  # end code of a token at least ``cap`` bytes long (its end is not looked for)


def _class_code(cls: torch.Tensor) -> torch.Tensor:
    """Word class -> 0 (whitespace, the edges), 1 (other ASCII), 2 (bytes >= 128)."""
    return (cls == ord(".")).long() + 2 * (cls == 128).long()


def token_hashes(
    words: torch.Tensor, lengths: torch.Tensor, cap: int, salt: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Hashes ``[1, B, L]`` of (class before, length up to ``cap``, class after) of the token
    starting at each position, and validity (only a token's first byte has one).

    ``words`` are the word classes (:data:`WORD_MAP`) of the input, ``[B, L]``. A token is a run of
    ``'w'`` bytes; the input's start and end read as whitespace. Training and export share this
    code: the first non-token byte at or after each position comes from ~log2(cap) shifted
    ``minimum`` steps over a window of ``cap`` bytes (no loop over the window's length), and the
    class after the token from one gather.
    """
    width = words.shape[1]
    pos = torch.arange(width + 1, device=words.device).unsqueeze(0)  # [1, L + 1]
    cls = F.pad(words.long(), (0, 1), value=WORD_EDGE)  # a boundary just past the tensor
    cls = cls.masked_fill(pos >= lengths.unsqueeze(1), WORD_EDGE)  # ... and past each row's end
    token = cls == _TOKEN
    big = 2**40  # "no boundary within the window" (any position is far below it)
    nxt = pos + token.long() * big  # boundaries point at themselves
    span = 1
    while span < cap:  # after the loop: the first boundary in [i, i + span), span >= cap
        nxt = torch.minimum(nxt, F.pad(nxt, (0, span), value=big)[:, span:])
        span *= 2
    run = nxt - pos
    long = run >= cap
    length = run.clamp(max=cap)
    after = cls.gather(1, torch.where(long, pos, nxt))  # nxt is a real position unless long
    end = _class_code(after).masked_fill(long, _LONG)
    prev = F.pad(cls[:, :-1], (1, 0), value=WORD_EDGE)  # the class before each byte
    before = _class_code(prev)
    start = token & (prev != _TOKEN)
    value = (before * 4 + end) * (cap + 1) + length + 1
    h = (value * _mult(salt)) % (MASK31 + 1)
    return h[:, :width].unsqueeze(0), start[:, :width].unsqueeze(0)


def aligned_hashes(
    ids: torch.Tensor,
    lengths: torch.Tensor,
    ngrams: tuple[int, ...],
    salt: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Hashes ``[K, B, L]`` of the n-grams *starting at* each position (one row per n) and their
    validity ``[K, B, L]``; positions where an n-gram does not fit hold hash 0 and ``False``.

    ``ids`` are byte ids + 1 (int64). ``salt`` separates these hashes from the mean's (so equal
    n-grams of the two branches land in unrelated buckets).
    """

    wrap = _wrapper(False)  # the training path; export uses aligned_hashes_fused
    width = ids.shape[1]
    pos = torch.arange(width, device=ids.device).unsqueeze(0)
    limit = lengths.unsqueeze(1)
    out_h, out_m = [], []
    for n, h in _rolling(ids, ngrams, wrap):
        hn = F.pad(wrap(h * _mult(n + salt)), (0, n - 1))
        out_h.append(hn[:, :width])  # wider when the window is shorter than n
        out_m.append(pos <= (limit - n))
    return torch.stack(out_h), torch.stack(out_m)


def _per_position(idx: torch.Tensor, valid: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """``[..., dim]``: per position, the sum of the table rows of the valid n-grams starting there
    (``idx``/``valid`` are ``[K, ...]``, one row per n-gram kind)."""
    emb = F.embedding(idx, table)
    return (emb * valid.to(emb.dtype).unsqueeze(-1)).sum(0)


class SteadyModel(nn.Module):
    family = "steady"

    def __init__(self, cfg: SteadyConfig, head_sizes: dict[str, int]) -> None:
        super().__init__()
        self.cfg = cfg
        self.use_bag = True
        rows, dim = max(cfg.buckets.values()), max(cfg.dims.values())
        self.table = nn.Parameter(torch.randn(rows, dim) * 0.1)
        if cfg.hidden:
            self.hidden = SlimLinear(dim, cfg.hidden)
            head_dims = {t: cfg.hidden for t in cfg.dims}
        else:  # the mean feeds the heads directly
            head_dims = dict(cfg.dims)
        if cfg.local:
            ldim = max(cfg.local_dims.values())
            # Distinct detector row counts of the tiers with units (training sums every position
            # once per count, see prepare).
            self.local_row_counts = sorted(
                {cfg.detector_rows(t) for t, u in cfg.local_hidden.items() if u}
            )
            rows = max(self.local_row_counts, default=cfg.local_buckets)
            self.local_table = nn.Parameter(torch.randn(rows, ldim) * 0.1)
            units = max(1, max(cfg.local_hidden.values()))
            self.local_proj = SlimLinear(ldim, units)
            # one projection per context offset (no bias: local_proj's is the units' bias)
            self.local_ctx = nn.ModuleList(
                SlimLinear(ldim, units, bias=False) for _ in cfg.local_context)
            self.register_buffer("shape_map", torch.from_numpy(SHAPE_MAP.copy()), persistent=False)
            if cfg.token_lengths:
                self.register_buffer(
                    "word_map", torch.from_numpy(WORD_MAP.copy()), persistent=False
                )
            if not cfg.local_heads:  # every head reads the detector: one wider feature vector
                head_dims = {t: d + cfg.local_hidden[t] for t, d in head_dims.items()}
        for key, names in (
            ("local_heads", cfg.local_heads),
            ("position_heads", cfg.position_heads),
        ):
            unknown = set(names) - set(head_sizes)
            if unknown:
                raise SpecError(f"arch.{key}: {sorted(unknown)[0]!r} is not a head of the spec")
        extras = []
        if cfg.position_heads:  # the positional mean, read by these heads only
            extras.append((dict(cfg.dims), cfg.position_heads))
        if cfg.local and cfg.local_heads:
            extras.append((dict(cfg.local_hidden), cfg.local_heads))
        self.heads = TierHeads(head_dims, head_sizes, extras)
        self._n_mean = 4 if cfg.position_heads else 2  # tensors of _mean_hashes

    @property
    def tiers(self) -> tuple[str, ...]:
        return tuple(self.cfg.dims)

    def features(
        self,
        data: torch.Tensor,
        lengths: torch.Tensor,
        tier: str,
        prepared: tuple[torch.Tensor, ...] | None = None,
        table: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Mean n-gram embedding for ``tier``; ``prepared`` (from :meth:`prepare`) reuses hashes,
        ``table`` the tier's table slice (:meth:`tier_table`)."""
        cfg = self.cfg
        exact = not self.use_bag
        if prepared is None:
            prepared = self._mean_hashes(data, lengths)
        h, weights = prepared[0], prepared[1]
        rows = cfg.buckets[tier]
        idx = buckets_of(h, rows, exact_ops=exact)
        if table is None:
            table = self.tier_table(tier)
        z = self._mean(idx, weights.to(table.dtype), table)
        if cfg.hidden:
            z = F.gelu(self.hidden(z, cfg.hidden))
        if not cfg.local_heads:
            det = self._detector(data, lengths, tier, prepared)
            if det is not None:
                z = torch.cat((z, det), dim=1)
        return z  # with ``local_heads``, the detector is passed to those heads separately

    def tier_table(self, tier: str) -> torch.Tensor:
        """The rows and dims of the table that ``tier`` reads."""
        return self.table[: self.cfg.buckets[tier], : self.cfg.dims[tier]]

    def position_features(
        self, tier: str, prepared: tuple[torch.Tensor, ...], table: torch.Tensor
    ) -> torch.Tensor:
        """``[B, dims[tier]]``: the mean table row of the positional n-grams alone (the
        ``position_heads`` read it beside the shared mean). A gather of their few rows from the
        same ``table`` slice as the shared mean (one slice: an exported graph that sliced the
        table twice would store it twice), after the shared mean in the graph."""
        rows = table.shape[0]
        idx = buckets_of(prepared[2], rows, exact_ops=not self.use_bag).flatten(1)
        w = prepared[3].flatten(1).to(table.dtype)
        total = torch.matmul(w.unsqueeze(1), F.embedding(idx, table)).squeeze(1)
        return total / w.sum(1, keepdim=True).clamp(min=1.0)

    def _mean(self, idx: torch.Tensor, weights: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
        """``[B, D]``: the weighted mean of the table rows of every n-gram."""
        rows = table.shape[0]
        cnt = weights.flatten(1).sum(1, keepdim=True).clamp(min=1.0)
        if self.use_bag or rows <= EXPORT_BAG_ROWS:
            # Per-row bucket counts times the table; no sort, no [B, N, D] tensor. Exported too
            # (ScatterElements 'add' + MatMul) while the table is small: reading [rows, dim] once
            # is far cheaper than gathering a row per n-gram (~12k for a 2 KB window).
            counts = torch.zeros(idx.shape[0], rows, dtype=table.dtype, device=idx.device)
            total = counts.scatter_add_(1, idx.flatten(1), weights.flatten(1)) @ table
        else:
            # Export only (hashes [B, K, N] from ngram_hashes_fused): one weighted sum per n-gram
            # kind, then across kinds. One float32 sum over all ~12k rows (positional ones weigh
            # ~40x) drifted 1.3e-4 in probability from the training path's per-bucket sums; per
            # kind (~2k rows) the drift is a fraction of that, with no float64 [B, N, D] copy.
            emb = F.embedding(idx, table)  # [B, K, N, D]
            total = torch.matmul(weights.unsqueeze(2), emb).sum(1).squeeze(1)
        return total / cnt

    def _detector(
        self,
        data: torch.Tensor,
        lengths: torch.Tensor,
        tier: str,
        prepared: tuple[torch.Tensor, ...],
    ) -> torch.Tensor | None:
        """The tier's detector units (None when it has none), reusing ``prepared``'s if any."""
        if not (self.cfg.local and self.cfg.local_hidden[tier]):
            return None
        return self.local_features(data, lengths, tier, tuple(prepared[self._n_mean :]) or None)

    def local_hashes(
        self, data: torch.Tensor, lengths: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Position-aligned detector hashes ``[K, B, L]`` and validity (raw and shape n-grams,
        then token lengths)."""
        cfg = self.cfg
        shape_map: torch.Tensor = self.shape_map  # type: ignore[assignment]
        kinds = []  # (byte channel, n-grams, salt): raw bytes, byte shapes
        if cfg.local_ngrams:
            kinds.append((data, cfg.local_ngrams, 2 * MAX_N))
        if cfg.shape_ngrams:
            kinds.append((shape_map[data.long()], cfg.shape_ngrams, 3 * MAX_N))
        parts = []
        if kinds:
            parts.append(self._aligned(kinds, lengths))
        if cfg.token_lengths:
            word_map: torch.Tensor = self.word_map  # type: ignore[assignment]
            parts.append(token_hashes(word_map[data.long()], lengths, cfg.token_lengths, 5 * MAX_N))
        if len(parts) == 1:
            return parts[0]
        return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])

    def _aligned(
        self, kinds: list[tuple[torch.Tensor, tuple[int, ...], int]], lengths: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Hashes and validity ``[K, B, L]`` of ``(byte channel, n-grams, salt)`` kinds."""
        if not self.use_bag:  # export: one Conv + one float64 MatMul for every kind
            chans = [c.to(torch.float32) + 1 for c, _, _ in kinds]
            return aligned_hashes_fused(chans, lengths, [(ng, salt) for _, ng, salt in kinds])
        parts = [aligned_hashes(c.long() + 1, lengths, ng, salt) for c, ng, salt in kinds]
        return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])

    def local_features(
        self,
        data: torch.Tensor,
        lengths: torch.Tensor,
        tier: str,
        local: tuple[torch.Tensor, ...] | None = None,
    ) -> torch.Tensor:
        """Max over positions of ``relu(W · sum of the n-gram embeddings starting there)``.

        With ``local`` from :meth:`prepare` under autograd, the max is found without gradients and
        only the winning positions are recomputed with them: the same values and the same
        gradients as a plain ``amax`` (which only passes gradient to its argmax), at a fraction
        of the cost of back-propagating through every position's table rows.
        """
        cfg = self.cfg
        dim, units, rows = cfg.local_dims[tier], cfg.local_hidden[tier], cfg.detector_rows(tier)
        table = self.local_table[:rows, :dim]
        if local is None:
            idx, valid = self._local_buckets(data, lengths, rows)
            if self.use_bag:
                per = _per_position(idx, valid, table)
            else:  # export: n-grams that do not fit read an appended zero row (no [K, B, L, D] mask)
                zero_row = F.pad(table, (0, 0, 0, 1))
                per = F.embedding(torch.where(valid, idx, table.shape[0]), zero_row).sum(0)
            act = F.relu(self._units(per, units))
            act = act * valid.any(0).to(act.dtype).unsqueeze(-1)  # no n-gram there: 0
            return act.amax(1)  # the runtime's windows are at least 1 byte wide
        h, valid = local[0], local[1]
        idx = buckets_of(h, rows)
        per_full = local[2 + self.local_row_counts.index(rows)]
        anyv = valid.any(0)  # [B, L]
        with torch.no_grad():
            act = F.relu(self._units(per_full[..., :dim], units)) * anyv.unsqueeze(-1)
            arg = act.argmax(1)  # [B, units]
        pre = self.local_proj(self._at(idx, valid, table, arg, 0), units)  # [B, units, units]
        for off, proj in zip(self.cfg.local_context, self.local_ctx):
            pre = pre + proj(self._at(idx, valid, table, arg, off), units)
        act = F.relu(pre.diagonal(dim1=1, dim2=2))  # [B, units]: each unit at its own position
        return act * anyv.gather(1, arg).to(act.dtype)

    def _units(self, per: torch.Tensor, units: int) -> torch.Tensor:
        """The detector units' inputs at every position of ``per`` ([B, L, dim] n-gram sums): its
        own projection, plus each context offset's projection of the sums that many bytes on
        (zeros past the window's end, where no n-gram is valid either)."""
        out = self.local_proj(per, units)
        length = per.shape[1]
        for off, proj in zip(self.cfg.local_context, self.local_ctx):
            ahead = F.pad(per, (0, 0, 0, off))[:, off : off + length]
            out = out + proj(ahead, units)
        return out

    @staticmethod
    def _at(idx: torch.Tensor, valid: torch.Tensor, table: torch.Tensor, arg: torch.Tensor,
            off: int) -> torch.Tensor:
        """The n-gram sums ``off`` bytes after each unit's winning position ``arg`` [B, units]
        ([B, units, dim]; zeros where that is past the window's end)."""
        pos = arg + off
        inside = pos < idx.shape[2]
        sel = pos.clamp(max=idx.shape[2] - 1).unsqueeze(0).expand(idx.shape[0], -1, -1)
        return _per_position(idx.gather(2, sel), valid.gather(2, sel) & inside.unsqueeze(0), table)

    def _local_buckets(
        self, data: torch.Tensor, lengths: torch.Tensor, rows: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        h, valid = self.local_hashes(data, lengths)
        return buckets_of(h, rows, exact_ops=not self.use_bag), valid

    def forward(
        self,
        data: torch.Tensor,
        lengths: torch.Tensor,
        tier: str,
        prepared: tuple[torch.Tensor, ...] | None = None,
    ) -> dict[str, torch.Tensor]:
        if prepared is None:
            prepared = self._mean_hashes(data, lengths)
        table = self.tier_table(tier)
        z = self.features(data, lengths, tier, prepared, table)
        extras: list[torch.Tensor | None] = []
        if self.cfg.position_heads:
            extras.append(self.position_features(tier, prepared, table))
        if self.cfg.local and self.cfg.local_heads:
            extras.append(self._detector(data, lengths, tier, prepared))
        return self.heads(z, tier, extras)

    def prepare(self, data: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Tier-independent hashes (mean, then detector ones if any), computed once per batch."""
        cfg = self.cfg
        mean = self._mean_hashes(data, lengths)
        if not (cfg.local and self.training and torch.is_grad_enabled()):
            return mean  # the detector's shortcut below only pays off when training
        h, valid = self.local_hashes(data, lengths)
        with torch.no_grad():  # every position at full width, once per detector row count
            per_full = [
                _per_position(buckets_of(h, rows), valid, self.local_table)
                for rows in self.local_row_counts
            ]
        return (*mean, h, valid, *per_full)

    def _mean_hashes(self, data: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, ...]:
        cfg = self.cfg
        # export: the same hashes in a few ONNX nodes
        hashes = ngram_hashes if self.use_bag else ngram_hashes_fused
        return hashes(
            data,
            lengths,
            cfg.ngrams,
            positions=cfg.positions,
            position_share=cfg.position_share,
            split=bool(cfg.position_heads),
        )
