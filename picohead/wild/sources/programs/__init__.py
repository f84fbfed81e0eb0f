"""Files of many formats made by installed programs the corpus never used (stage mime-programs).

Does: reads ``picohead/recipes/wild/programs.json`` (programs, their apt packages, jobs and option
sets), makes varied input content (prose written here and text from the documentation and manual
pages of the wild programs' own Debian packages, images, speech and tones, graphs, tunes, small
C/assembly/WAT programs, file trees), runs each job's program on seeded draws of inputs and options,
checks the output's signature, and writes every accepted file with ``StageWriter(suite, "mime")``
as producer ``program:<name>``. Outputs (and failures) are cached under ``cache/programs/`` keyed by
program version, argv and input hash, so a rerun runs nothing. A program that is not installed is
logged with the apt package that provides it and its formats appear under ``missing`` in the
returned summary (``summary.json`` beside the stage's cache).

Does not: install anything (``required_packages()`` lists the apt packages for the documented
``apt-get install -y --no-install-recommends ...``), judge a program's independence from the corpus
(``picohead.data.producers`` does, and the recipe's ``excluded`` says why some programs are not
used), or use the network.

Modules: ``jobs`` (the recipe, option draws, argv rendering, output checks), ``inputs`` (the
``Input`` type and pool cache), ``text_inputs``, ``media_inputs`` and ``code_inputs`` (the
makers), ``run`` (the cached runner and one task); this module holds ``Inputs``, the summary and
the build loop.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from picohead.wild.sources.programs.code_inputs import CodeInputs
from picohead.wild.sources.programs.inputs import Input
from picohead.wild.sources.programs.jobs import (
    CAP,
    RECIPE,
    _draw,
    _elf_type,
    expand_option,
    expect_ok,
    load_recipe,
    missing_binaries,
    render,
    required_packages,
)
from picohead.wild.sources.programs.media_inputs import MediaInputs
from picohead.wild.sources.programs.run import WORKERS, Runner, package_versions, run_task
from picohead.wild.sources.programs.text_inputs import TextInputs
from picohead.wild.suite import StageWriter

__all__ = [
    "CAP", "RECIPE", "Input", "Inputs", "Runner", "Summary", "build", "expand_option", "expect_ok",
    "load_recipe", "missing_binaries", "package_versions", "render", "required_packages",
]

log = logging.getLogger(__name__)


class Inputs(TextInputs, MediaInputs, CodeInputs):
    """Makes (and caches) the input pools that jobs draw from: ``pool(kind)`` calls ``_<kind>``."""


@dataclass
class Summary:
    files: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    missing: list[dict[str, Any]] = field(default_factory=list)
    failed: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def as_dict(self) -> dict[str, Any]:
        return {
            "types": {
                lab: {"files": sum(p.values()), "programs": sorted(p)}
                for lab, p in sorted(self.files.items())
            },
            "total": sum(sum(p.values()) for p in self.files.values()),
            "missing": self.missing,
            "failed_jobs": dict(self.failed),
        }


def build(
    suite: Path,
    *,
    cache: Path,
    mirrors: Path,
    recipe_path: Path = RECIPE,
    only: set[str] | None = None,
    workers: int = WORKERS,
) -> Path:
    """Run the recipe's programs and write ``.stages/mime-programs.jsonl``; returns that path.

    ``only`` restricts the run to some programs (tests); ``mirrors`` is unused (no git sources).
    The summary (types, files, programs, missing programs and formats) is logged and written to
    ``cache/programs/summary.json``.
    """
    del mirrors
    t0 = time.monotonic()
    recipe = load_recipe(recipe_path)
    progs: dict[str, dict[str, Any]] = recipe["programs"]
    if only is not None:
        progs = {k: v for k, v in progs.items() if k in only}
    root = cache.resolve() / "programs"  # programs run in their own folders: absolute paths
    apt = sorted({p["apt"] for p in progs.values()})
    pv = package_versions(apt)
    versions = {name: f"{p['apt']} {pv.get(p['apt'], '?')}" for name, p in progs.items()}
    versions.setdefault("imagemagick", f"imagemagick {pv.get('imagemagick', '?')}")
    runner = Runner(root / "out", versions)
    inputs = Inputs(root / "in", recipe, runner)
    w = StageWriter(suite, "mime")
    summ = Summary()
    made: dict[str, list[Input]] = {}
    made_pdf: list[Input] = []
    per_pl: dict[tuple[str, str], int] = defaultdict(int)

    for name, prog in progs.items():
        miss = missing_binaries(prog)
        if miss:
            labels = sorted({jb["label"] for jb in prog["jobs"] if jb.get("n", 0) > 0})
            log.warning(
                "program %s missing (%s not on PATH): apt-get install %s; formats not made: %s",
                name,
                ", ".join(miss),
                prog["apt"],
                ", ".join(labels),
            )
            summ.missing.append(
                {"program": name, "apt": prog["apt"], "binaries": miss, "labels": labels}
            )
            w.skip(f"program:{name}", f"not installed (apt-get install {prog['apt']}); "
                   f"formats not made: {', '.join(labels)}")
            continue
        for job in prog["jobs"]:
            n = min(int(job.get("n", 0)), CAP)
            if n <= 0:
                continue
            kind = job["input"]
            if kind.startswith("job:"):
                pool = made.get(kind[4:], [])
            elif kind == "pdf":
                pool = list(made_pdf)
            else:
                pool = inputs.pool(kind)
            if job.get("max_in"):
                pool = [x for x in pool if x.path.stat().st_size <= job["max_in"]]
            if not pool:
                log.warning("job %s of %s: no inputs of kind %s", job["id"], name, kind)
                summ.failed[job["id"]] += n
                continue
            tasks = []
            for i in range(n):
                rng = random.Random(f"{name}:{job['id']}:{i}")
                inp = pool[i % len(pool)] if len(pool) >= n else rng.choice(pool)
                vals, shown = _draw(rng, job.get("vary", {}))
                tasks.append((i, inp, vals, shown))

            with ThreadPoolExecutor(max_workers=workers) as ex:
                results = list(ex.map(partial(run_task, runner, name, job), tasks))
            outs: list[Input] = []
            for i, inp, shown, data in results:
                if (
                    data is None
                    or not expect_ok(data, job.get("expect", []))
                    or (job.get("elf_type") and _elf_type(data) != job["elf_type"])
                ):
                    summ.failed[job["id"]] += 1
                    continue
                lab = job["label"]
                if per_pl[(name, lab)] >= CAP:
                    continue
                lic = inp.licence if prog["licence"] == "{input}" else prog["licence"]
                rec = w.add(
                    data,
                    lab,
                    producer=f"program:{name}",
                    licence=lic,
                    path=f"{job['id']} #{i}: {job['ext'] or 'executable'} made from {inp.origin}",
                    version=versions[name],
                    kind=None,
                    options=shown or "-",
                    argv=" ".join(
                        job.get("cmd") or [" ; ".join(" ".join(s) for s in job["steps"])]
                    ),
                )
                out_in = inputs._file(f"o.{job['ext'] or 'bin'}", data, lic, f"{job['id']} output")
                outs.append(out_in)
                if lab == "application/pdf":
                    made_pdf.append(out_in)
                if rec is not None:
                    per_pl[(name, lab)] += 1
                    summ.files[lab][name] = summ.files[lab].get(name, 0) + 1
            made[job["id"]] = outs
            if len(outs) < n:
                log.info("job %s: %d of %d outputs accepted", job["id"], len(outs), n)
    path = w.close("mime-programs")
    s = summ.as_dict()
    s["seconds"] = round(time.monotonic() - t0, 1)
    s["runs"], s["cache_hits"] = runner.ran, runner.hits
    (root / "summary.json").write_text(json.dumps(s, indent=1))
    thin = [lab for lab, d in s["types"].items() if len(d["programs"]) < 3]
    log.info(
        "mime-programs: %d files over %d types from %d programs in %.0fs (%d runs, %d cached); "
        "%d programs missing; types with < 3 programs: %s",
        s["total"],
        len(s["types"]),
        len({p for d in s["types"].values() for p in d["programs"]}),
        s["seconds"],
        runner.ran,
        runner.hits,
        len(summ.missing),
        ", ".join(thin) or "none",
    )
    for m in summ.missing:
        log.warning(
            "missing: program:%s (apt %s) -> %s", m["program"], m["apt"], ", ".join(m["labels"])
        )
    return path
