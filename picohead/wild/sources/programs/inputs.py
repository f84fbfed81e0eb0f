"""Input files and the pool cache that every input maker shares.

``Input`` is one file (or folder) with its hash, licence and origin; ``InputPool`` writes content
once under ``cache/programs/in`` (mtime fixed at ``EPOCH``) and builds each pool on first use by
calling the maker method ``_<kind>``. ``PROSE`` is the prose every maker draws from. What it does
not do: define the makers (``text_inputs``, ``media_inputs``, ``code_inputs``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CC0 = "CC0-1.0"
EPOCH = 1672531200  # 2023-01-01, the mtime of every input file


@dataclass(frozen=True)
class Input:
    """One input: a file (or a folder, for ``tree``) and where its content came from."""

    path: Path
    sha: str
    licence: str
    origin: str
    text: str = ""
    args: tuple[str, ...] = ()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


PROSE = [
    "The ferry leaves the harbour at seven, and the gulls follow it past the lighthouse.",
    "Bake the bread for forty minutes, then let it rest on a rack before slicing.",
    "Our allotment grew more beans than we could eat, so we pickled the rest in jars.",
    "The committee will meet on Thursday to discuss the library's opening hours.",
    "A cold front moves in from the north tonight, bringing rain and strong winds.",
    "She tuned the old piano by ear, one string at a time, humming each note.",
    "Trains on the valley line are replaced by buses this weekend for track repairs.",
    "The museum's new wing shows maps drawn by sailors three hundred years ago.",
    "Water the seedlings every morning and keep them out of the afternoon sun.",
    "He kept a notebook of every bird he saw on the walk from the village to the coast.",
    "Der Zug nach Hamburg hat heute zwanzig Minuten Verspätung.",
    "Le marché du samedi vend des fromages de toute la région.",
    "El autobús pasa cada quince minutos por la plaza mayor.",
    "Il concerto è stato rinviato a causa della pioggia.",
    "De bakker op de hoek verkoopt het lekkerste roggebrood.",
    "Pociąg do Krakowa odjeżdża z peronu trzeciego.",
]


class InputPool:
    """Makes (and caches) the input pools that jobs draw from; makers come from subclasses."""

    def __init__(self, root: Path, recipe: dict[str, Any], runner: Callable[..., bytes | None]):
        self.root = root
        self.recipe = recipe
        self.run = runner
        self.pools: dict[str, list[Input]] = {}
        root.mkdir(parents=True, exist_ok=True)

    def _file(
        self,
        name: str,
        data: bytes,
        licence: str,
        origin: str,
        text: str = "",
        args: tuple[str, ...] = (),
    ) -> Input:
        sha = _sha(data)
        p = self.root / f"{sha[:16]}-{name}"
        if not p.exists():
            p.write_bytes(data)
            os.utime(p, (EPOCH, EPOCH))
        return Input(p, sha, licence, origin, text, args)

    def pool(self, kind: str) -> list[Input]:
        if kind not in self.pools:
            self.pools[kind] = getattr(self, "_" + kind)()
        return self.pools[kind]
