"""Risk flags: detectors for real samples, and a generator of realistic secrets and look-alikes.

One concept per module: ``tokens`` (provider API-token formats: generator and detector from one
table), ``passwords`` (field names, syntaxes, placeholders and hashes), ``phones``, ``makers``
(JWTs, private keys, e-mail addresses and the ``MAKERS`` table), ``negatives`` (look-alikes and
0-16-byte inputs without a flag), ``place`` (writing a value into a host file), ``detect`` (the
detectors over the model's window) and ``train`` (training-time relabel, refresh and plant). This
module re-exports their public names, so ``picohead.data.risk:relabel_excerpt`` and the other
names the training recipe and the corpus build use keep working. Not here: the build's sampling
and splits.
"""

from __future__ import annotations

from picohead.data.risk.common import DOMAINS, FIRST, LAST, RISKS, WINDOW, window
from picohead.data.risk.common import b62 as _b62
from picohead.data.risk.common import b64url as _b64url
from picohead.data.risk.common import checksummed as _checksummed
from picohead.data.risk.common import rand as _rand
from picohead.data.risk.detect import detect, spans, visible
from picohead.data.risk.makers import MAKERS, available_kinds, email, jwt, private_key
from picohead.data.risk.negatives import lookalike, not_a_phone, tiny, tiny_positive, tiny_samples
from picohead.data.risk.passwords import password, placeholder, secret_like
from picohead.data.risk.phones import phone
from picohead.data.risk.place import DOTENV_SHARE, assignment, excerpt, insert
from picohead.data.risk.tokens import EXAMPLE_KEYS, FORMATS, api_key
from picohead.data.risk.train import (
    PASSWORD_NAMES,
    PLANT_NEGATIVE_SHARE,
    REFRESHED,
    SHARED_NAMES,
    plant_secret,
    refresh_secrets,
    relabel_excerpt,
)

__all__ = [
    "DOMAINS", "DOTENV_SHARE", "EXAMPLE_KEYS", "FIRST", "FORMATS", "LAST", "MAKERS", "PASSWORD_NAMES",
    "PLANT_NEGATIVE_SHARE", "REFRESHED", "RISKS", "SHARED_NAMES", "WINDOW", "_b62", "_b64url",
    "_checksummed", "_rand", "api_key", "assignment", "available_kinds", "detect", "email",
    "excerpt", "insert", "jwt", "lookalike", "not_a_phone", "password", "phone", "placeholder",
    "plant_secret", "private_key", "refresh_secrets", "relabel_excerpt", "secret_like", "spans",
    "tiny", "tiny_positive", "tiny_samples", "visible", "window"]
