"""Build a corpus from a recipe: fetch, harvest, generate, then dedup, cap, split and describe.

Stages write ``OUT/.stages/<stage>.jsonl`` and are skipped when that file exists, so an interrupted
build resumes where it stopped (downloads are cached separately under ``--cache``). The final step
always reruns from the stage files: dedup by content hash (one record per blob, so no blob is in two
splits), caps per source and label and per label, deterministic splits by source group (hash of the
group name, then whole groups moved so every label has validation and test samples), and the
manifests, provenance and dataset card.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from tqdm import tqdm

from picohead.data import formats, program_formats, risk
from picohead.data.baseline import compare, load_baseline, save_last_good
from picohead.data.breadth import FINE_HEADS, breadth, cap_producers, producer_of, under_floor
from picohead.data.elf import ELF_MIMES, elf_mime
from picohead.data.fetch import DONE, FetchError, fetch, is_unpacked, unpacked_root
from picohead.data.harvest import harvest, seeded
from picohead.data.labels import code_labels, format_labels
from picohead.data.recipe import Recipe, RecipeError
from picohead.data.store import BlobStore, read_stages, stage_done, stage_path, write_stage
from picohead.data.tolerance import DegradedBuildError, judge

log = logging.getLogger(__name__)

SPLITS = ("train", "val", "test")
PRIMARY = ("code_lang", "text_lang", "mime")


def _bar(it: Any = None, **kw: Any) -> tqdm:
    """Progress on stderr; when stderr is not a terminal (a log file) it updates once a minute."""
    tty = sys.stderr.isatty()
    return tqdm(it, file=sys.stderr, mininterval=0.5 if tty else 60, **kw)


def _spec_labels(spec_path: Path) -> tuple[dict[str, Any], dict[str, set[str]]]:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    return spec, {h["name"]: set(h["labels"]) for h in spec["heads"]}


def _h(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:12], 16)


# -- stages ---------------------------------------------------------------------------------------
def stage_sources(recipe: Recipe, out: Path, cache: Path, jobs: int, labels: dict[str, set[str]],
                  failures: dict[str, str], mirrors: Path | None = None) -> None:
    store = BlobStore(out)
    cap = int(recipe.setting("cap_per_source_label", 800))
    ncuts = int(recipe.setting("cuts_per_file", 1))
    names = {_stage_name(e): e for e in recipe.entries}
    stages = Path(out) / ".stages"
    if stages.exists():  # entries changed or removed since the last build: their stages are stale
        valid = {stage_path(out, n).name for n in names}
        for p in stages.glob("src_*.jsonl"):
            if p.name not in valid:
                p.unlink()
    todo = [e for n, e in names.items() if not stage_done(out, n)]

    def run(e: dict[str, Any]) -> tuple[str, int]:
        name = _stage_name(e)
        f = fetch(cache, e["kind"], e["name"], e.get("version"), sdist=bool(e.get("sdist")),
                  languages=e.get("languages"), mirrors=mirrors, commit=e.get("commit"),
                  paths=e.get("paths"))
        recs = harvest(e, f.root, f.version, store, default_cap=cap, cuts_per_file=ncuts,
                       spec_labels=labels)
        return name, write_stage(out, name, recs)

    with ThreadPoolExecutor(max(1, jobs)) as ex, _bar(total=len(todo), desc="packages") as bar:
        futs = {ex.submit(run, e): e for e in todo}
        for fut in as_completed(futs):
            e = futs[fut]
            try:
                name, n = fut.result()
                log.info("%s: %d samples", name, n)
            except (FetchError, OSError, ValueError) as err:
                failures[f"{e['kind']}:{e['name']}"] = str(err)[:300]
                log.warning("%s:%s failed: %s", e["kind"], e["name"], err)
            bar.update(1)


def _stage_name(e: dict[str, Any]) -> str:
    """Stage file of a recipe entry; the hash makes an edited entry rerun."""
    h = hashlib.sha256(json.dumps(e, sort_keys=True).encode()).hexdigest()[:8]
    return f"src_{e['kind']}_{e['name'].replace('/', '+')}_{h}"


def _records_by(out: Path, pred: Any) -> list[dict[str, Any]]:
    return [r for r in read_stages(out) if pred(r)]


def _blob(out: Path, r: dict[str, Any]) -> bytes:
    return (out / r["path"]).read_bytes()


def _utf8_sample(out: Path, recs: list[dict[str, Any]], rng: random.Random, k: int = 4000) -> list[str]:
    """The UTF-8 contents of ``k`` of ``recs`` drawn with ``rng`` (undecodable ones left out)."""
    rng.shuffle(recs)
    texts = []
    for r in recs[:k]:
        try:
            texts.append(_blob(out, r).decode("utf-8"))
        except (UnicodeDecodeError, OSError):
            pass
    return texts


def stage_risk(recipe: Recipe, out: Path, n_pos: int, short_share: float = 0.0) -> None:
    """Risk samples: real text with generated secrets (``n_pos`` per kind) or look-alikes inserted;
    ``short_share`` of them are then cut to the few lines around the last insertion."""
    if stage_done(out, "gen_risk"):
        return
    store = BlobStore(out)
    rng = seeded("risk")
    hosts = _records_by(out, lambda r: r["source"].split(":")[0] in ("deb", "debsrc", "pypi", "npm")
                        and ("code_lang" in r["labels"] or "text_lang" in r["labels"])
                        and not r["labels"].get("risk"))
    rng.shuffle(hosts)
    hosts = hosts[: 4 * n_pos * 3]
    if not hosts:
        write_stage(out, "gen_risk", [])
        return
    recs = []
    kinds = risk.available_kinds()
    if len(kinds) < len(risk.RISKS):
        log.warning("cryptography is not installed: no private_key risk samples (pip install "
                    "'picohead[data]')")
    total = n_pos * len(kinds) + 2 * n_pos * 2
    for i in _bar(range(total), desc="risk samples"):
        h = hosts[i % len(hosts)]
        try:
            text = _blob(out, h).decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if len(text.encode()) > 4000:
            text = text[: rng.randrange(600, 3500)]
            text = text[: text.rfind("\n") + 1] or text
        lang = h["labels"].get("code_lang")
        inserted: dict[str, str] = {}
        line = ""
        if i < n_pos * len(kinds):
            if rng.random() < .5:  # look-alikes beside real secrets too (first: keep PEM intact)
                key, val = risk.lookalike(rng)
                text = risk.insert(text, risk.assignment(lang, key, val, rng), rng)
            main = kinds[i % len(kinds)]
            todo = [main] + ([rng.choice(kinds)] if rng.random() < 0.25 else [])
            for k in todo:
                key, val = risk.MAKERS[k](rng)
                line = risk.assignment(lang, key, val, rng)
                text = risk.insert(text, line, rng)
                inserted[k] = val
        else:
            for _ in range(rng.randrange(1, 4)):
                key, val = risk.lookalike(rng)
                line = risk.assignment(lang, key, val, rng)
                text = risk.insert(text, line, rng)
        short = rng.random() < short_share
        if short:
            text = risk.excerpt(text, line, rng)
        data = text.encode("utf-8")
        # A later insertion can push an earlier secret out of the window: label what it shows.
        found = set(risk.detect(data)) | {k for k, v in inserted.items() if risk.visible(v, data)}
        # An excerpt of a few lines is labelled for risk only: its host's language and format
        # labels would put one- to five-line snippets into the per-file language scores.
        labels = {k: v for k, v in h["labels"].items() if k != "risk" and not short}
        labels["risk"] = [k for k in risk.RISKS if k in found]
        prov = dict(h["prov"], generator="picohead.data.risk", host=h["id"])
        recs.append(store.record(data, labels, source=f"risk:{h['source']}", group=h["group"],
                                 prov=prov))
    # 0-16-byte inputs ({}, a NUL byte, digits, short words; ~10 % real short positives such as a
    # bare +1 phone number): learned, not a length rule (issue 23); labelled for risk only
    for j, (data, flags) in enumerate(risk.tiny_samples(rng, n_pos)):
        recs.append(store.record(data, {"risk": flags}, source="risk:tiny",
                                 group=f"risk-tiny-{j % 50}",
                                 prov={"package": "picohead.data.risk:tiny_samples",
                                       "kind": "generator", "version": "1",
                                       "licence": "Apache-2.0", "path": f"risk-tiny/{j}",
                                       "producer": "gen:risk-tiny"}))
    write_stage(out, "gen_risk", recs)


# Generators called alike (rng, pool, n); ``stage_formats`` calls the others with what they need.
GENERATORS = {**formats.GENERATORS, **program_formats.GENERATORS}
DEFAULT_GENERATORS = [*GENERATORS, "av", "av_more", "pyc", "debs", "jars"]


def stage_formats(recipe: Recipe, out: Path, cache: Path, jobs: int, missing: list[str]) -> None:
    store = BlobStore(out)
    per = int(recipe.setting("per_format", 320))
    gens = recipe.setting("generators", DEFAULT_GENERATORS)
    todo = [g for g in gens if not stage_done(out, f"gen_{g}")]
    if not todo:
        return
    rng = seeded("pool")
    staged = list(read_stages(out))  # read once for both pools
    texts = _utf8_sample(out, [r for r in staged if "text_lang" in r["labels"]], rng)
    # source files, for generated formats that carry code (patches), drawn apart from the rest
    code = _utf8_sample(out, [r for r in staged if "code_lang" in r["labels"]], seeded("pool", "code"))
    all_files = _pool_files(recipe, cache)
    rng.shuffle(all_files)
    files = all_files[:5000]
    fonts = sorted(p for p in all_files if p.suffix.lower() in (".ttf", ".otf")
                   and "/deb/fonts-" in str(p))
    pool = formats.Pool(texts, files, fonts, code)
    overrides = recipe.setting("per_generator", {})
    for g in todo:
        per = int(overrides.get(g, recipe.setting("per_format", 320)))
        grng = seeded("gen", g)
        t0 = time.time()
        if g == "av":
            it = formats.gen_av(grng, pool, per, jobs)
        elif g == "av_more":
            it = formats.gen_av_more(grng, pool, per, jobs)
        elif g == "pyc":
            srcs = [_blob(out, r) for r in _records_by(
                out, lambda r: r["labels"].get("code_lang") == "python" and r["source"].startswith(("deb", "pypi")))[:3000]]
            it = formats.gen_pyc(grng, pool, per, srcs)
        elif g == "debs":
            it = _debs(cache, per, {e["name"] for e in recipe.entries if e["kind"] == "deb"})
        elif g == "jars":
            classes = _records_by(out, lambda r: r["labels"].get("mime") == "application/java-vm")
            it = formats.gen_jars(grng, pool, per, [(r["prov"]["path"], out / r["path"]) for r in classes])
        elif g == "fonts":
            it = formats.gen_fonts(grng, pool, per)
        else:
            it = GENERATORS[g](grng, pool, per)
        recs = []
        counts: Counter[str] = Counter()
        try:
            for i, (data, mime, extra) in enumerate(_bar(it, desc=f"gen {g}")):
                lab: dict[str, Any] = format_labels(mime, subtype=extra.get("subtype"),
                                                    modality=extra.get("modality"))
                # binary samples too: a model never shown a binary's risk target flags them at
                # random (content-v5's pro flagged 57 % of the test split's binaries)
                lab["risk"] = extra["risk"] if "risk" in extra else risk.detect(data)
                src = extra.get("source", f"gen:{g}")
                grp = extra.get("group", f"gen:{g}:{mime}:{counts[mime] // 4}")
                counts[mime] += 1
                prov = extra.get("prov", {"package": f"picohead.data.formats:{g}", "kind": "generator",
                                          "version": "1", "licence": "Apache-2.0", "path": f"{g}/{i}"})
                recs.append(store.record(data, lab, source=src, group=grp, prov=prov))
        except Exception as err:  # noqa: BLE001 - one broken encoder must not stop the build
            log.warning("generator %s failed after %d samples: %s", g, len(recs), err)
            missing.append(f"{g}: {err}"[:200])
            if not recs:
                continue
        write_stage(out, f"gen_{g}", recs)
        log.info("gen %s: %d samples in %.0fs", g, len(recs), time.time() - t0)


def _pool_files(recipe: Recipe, cache: Path) -> list[Path]:
    """The files the generators may pack into archives and containers: those of the recipe's own
    unpacked entries, in path order. Only those, as in :func:`_debs`: the pool read every file
    under ``cache/x`` in the file system's order, so a corpus changed with the machine, with what
    else the cache held (git trees fetched after the generators ran, packages downloaded by a
    benchmark) and could pack files of producers the recipe loader never checked."""
    roots = sorted({unpacked_root(cache.resolve(), e["kind"], e["name"], e.get("commit"))
                    for e in recipe.entries})
    return sorted(p for r in roots if is_unpacked(r) for p in r.rglob("*")
                  if p.is_file() and not p.is_symlink() and p.name != DONE)


def _debs(cache: Path, per: int, packages: set[str]) -> Any:
    """The downloaded ``.deb`` files of the recipe's own ``deb`` entries (``packages``), first
    ``2 * per`` by file name. Only those: the download folder may hold other packages (fetched by
    hand, by ``benchmarks/real_formats_counts.py`` or for an older recipe), and a corpus must not
    depend on what else a cache holds, nor take a package the recipe loader never checked against
    the wild suite (a cached golang-github-docker-docker-dev did: project docker owns a pinned
    wild repository)."""
    debs = [p for p in sorted((cache.resolve() / "dl" / "deb").glob("*.deb"))
            if p.name.split("_")[0] in packages]
    for p in debs[: per * 2]:
        pkg, ver = p.name.split("_")[:2]
        yield p.read_bytes(), "application/vnd.debian.binary-package", {
            "source": f"deb:{pkg}", "group": f"deb:{pkg}",
            "prov": {"package": pkg, "kind": "deb", "version": ver, "licence": "see package",
                     "path": p.name}}


_ELF_HEAD = 16384  # the ELF header and program headers sit at the start of a file

# -- final step ---------------------------------------------------------------------------------
def finalize(recipe: Recipe, out: Path, spec: dict[str, Any], labels: dict[str, set[str]],
             failures: dict[str, str], missing: list[str], t_start: float,
             exclude: set[str] | None = None) -> dict[str, Any]:
    """Stage files -> manifests, provenance and card, in the steps below (always rerun)."""
    mins = recipe.setting("min_per_split", {"train": 200, "val": 30, "test": 30})
    recs, bad, wild_dropped = _valid_records(out, labels, exclude or set())
    elf_relabelled = _elf_by_header(out, recs, labels)
    for r in recs:
        r["producer"] = producer_of(r)
    recs, wild_producer = _drop_wild_producers(recs)
    share = float(recipe.setting("max_producer_share", 0.1))
    recs, cap_unmet = _capped(recs, int(recipe.setting("cap_per_source_label", 800)),
                              int(recipe.setting("cap_per_label", 3000)), share,
                              2 * sum(int(v) for v in mins.values()))
    _refresh_risk(out, recs)
    few = _split_thin_labels_by_file(recs, int(recipe.setting("min_groups_per_label", 20)))
    _assign_splits(recs, mins)
    counts, dropped = _drop_thin_labels(recipe, spec, labels, recs, mins)
    _write_manifests(out, spec, dropped, recs)
    card = _card(recipe, recs, counts, dropped, failures, missing, bad, time.time() - t_start)
    card["split_by_file"] = sorted(few)
    card["dropped_as_wild_suite_content"] = wild_dropped if exclude is not None else None
    card["dropped_as_wild_suite_producer"] = wild_producer
    card["relabelled_by_elf_header"] = dict(sorted(elf_relabelled.items()))
    _judge_card(recipe, out, card, recs, failures, missing, cap_unmet, share, mins)
    (out / "card.json").write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n")
    (out / "DATASET_CARD.md").write_text(_card_md(card), encoding="utf-8")
    if card["tolerance"]["passed"]:
        save_last_good(out, card)
    return card


def _drop_wild_producers(recs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The records whose producer the wild suite does not claim, and source -> records dropped.
    The recipe is checked before the build (``check_wild_independence``), but stage files are
    reused while they exist, so a stage written by an older recipe or from a cache holding other
    packages can still carry one (a registry-only build of 2026-12-05: one .deb of
    golang-github-docker-docker-dev, project docker, owner of the pinned docker/awesome-compose,
    from a ``gen_debs`` stage written before that generator kept to the recipe's packages)."""
    from picohead.data.producers import wild_producers

    wp = wild_producers()
    verdict: dict[tuple[str, str], bool] = {}
    kept: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    for r in recs:
        src = str(r["source"]).removeprefix("risk:")
        k = (src, r["producer"])
        if k not in verdict:
            verdict[k] = (src.split(":", 1)[0] in ("deb", "debsrc", "pypi", "npm", "git")
                          and wp.claims(src, r["producer"]))
        if verdict[k]:
            dropped[src] += 1
        else:
            kept.append(r)
    if dropped:
        log.warning("dropped %d records whose producer the wild suite pins: %s",
                    sum(dropped.values()), ", ".join(sorted(dropped)[:10]))
    return kept, dict(sorted(dropped.items()))


def _judge_card(recipe: Recipe, out: Path, card: dict[str, Any], recs: list[dict[str, Any]],
                failures: dict[str, str], missing: list[str], cap_unmet: dict[str, int],
                share: float, mins: dict[str, int]) -> None:
    """Add the producer table, the comparison with the last good build and the tolerance
    verdict to ``card``."""
    table = breadth(recs, FINE_HEADS, floor=int(recipe.setting("producer_floor", 20)),
                    floor_large=int(recipe.setting("producer_floor_large", 50)),
                    large=set(recipe.setting("large_ecosystems", [])), share=share)
    card["producers"] = table
    card["producer_cap"] = {"max_share": share, "unmet": dict(sorted(cap_unmet.items()))}
    card["under_producer_floor"] = under_floor(table)
    before, src = load_baseline(out, recipe.root)
    decided = recipe.data.get("dropped_labels", {})  # the recipe's own drops are no loss
    thin = {h: {lab: why for lab, why in d.items() if lab not in decided.get(h, {})}
            for h, d in card["dropped_labels"].items()}
    card["comparison"] = compare(card["per_head"], before, src, thin, mins)
    gens = recipe.setting("generators", DEFAULT_GENERATORS)
    card["tolerance"] = judge(recipe.entries, failures, list(gens), missing,
                              dict(recipe.setting("max_failed_share", {})), card["comparison"],
                              float(recipe.setting("max_label_drop", 0.2)))


def _elf_by_header(out: Path, recs: list[dict[str, Any]], labels: dict[str, set[str]]
                   ) -> Counter[str]:
    """ELF samples take the MIME label their header gives (``picohead.data.elf``), not the one
    their path or rule gave (a recipe rule reads executables from ``usr/lib`` too, where shared
    objects and PIE executables sit side by side); the label's other heads follow. Returns the
    changes as ``old -> new`` counts."""
    changed: Counter[str] = Counter()
    for r in recs:
        old = r["labels"].get("mime")
        if old not in ELF_MIMES or "path" not in r:
            continue
        with open(out / r["path"], "rb") as f:
            new = elf_mime(f.read(_ELF_HEAD))
        if new is None or new == old or new not in labels.get("mime", ()):
            continue
        r["labels"] = {**r["labels"], **format_labels(new)}
        changed[f"{old} -> {new}"] += 1
    return changed


def _valid_records(out: Path, labels: dict[str, set[str]], exclude: set[str]
                   ) -> tuple[list[dict[str, Any]], Counter[str], int]:
    """One record per blob whose labels are in the spec, none that a wild sample holds; the
    labels refused, and how many records were wild-suite content."""
    seen: set[str] = set()
    recs: list[dict[str, Any]] = []
    bad: Counter[str] = Counter()
    wild_dropped = 0
    for r in read_stages(out):
        if r["id"] in seen:
            continue
        if r["id"] in exclude:  # the same bytes are a wild-suite sample
            wild_dropped += 1
            continue
        lang = r["labels"].get("code_lang")
        if lang is not None:  # labels implied by the language follow today's table (a reused
            r["labels"] = {**r["labels"], **code_labels(lang)}  # stage may hold older ones)
        ok = True
        for head, val in r["labels"].items():
            vals = val if isinstance(val, list) else [val]
            if head not in labels or any(v not in labels[head] for v in vals):
                bad[f"{head}={val}"] += 1
                ok = False
        if ok:
            seen.add(r["id"])
            recs.append(r)
    return recs, bad, wild_dropped


def _capped(recs: list[dict[str, Any]], per_source: int, per_label: int, share: float = 1.0,
            keep_at_least: int = 0) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Caps per (source, primary label), per producer (no producer above ``share`` of a fine
    label's samples, ``picohead.data.breadth``) and per primary label, in a deterministic order
    (hash of the id), then the producer cap once more (the label cap moves shares a little);
    risk samples are not capped. Returns the records and the labels that cannot meet the
    producer cap (they keep their samples)."""
    is_risk = lambda r: r["source"].startswith("risk:")  # noqa: E731
    recs = _cap_by(sorted(recs, key=lambda r: _h(r["id"])), per_source,
                   lambda r: (r["source"], _primary(r)))
    recs, unmet = cap_producers(recs, share, exempt=is_risk, keep_at_least=keep_at_least)
    recs = _cap_by(sorted(recs, key=lambda r: _h(r["id"])), per_label, _primary)
    recs, unmet2 = cap_producers(recs, share, exempt=is_risk, keep_at_least=keep_at_least)
    return sorted(recs, key=lambda r: _h(r["id"])), {**unmet, **unmet2}


def _cap_by(recs: list[dict[str, Any]], cap: int, key: Any) -> list[dict[str, Any]]:
    """The first ``cap`` records of each ``key(record)``, in order; risk samples are kept and
    not counted."""
    seen: Counter[Any] = Counter()
    kept = []
    for r in recs:
        if not r["source"].startswith("risk:"):
            k = key(r)
            if seen[k] >= cap:
                continue
            seen[k] += 1
        kept.append(r)
    return kept


def _split_thin_labels_by_file(recs: list[dict[str, Any]], min_groups: int) -> set[str]:
    """A label whose samples come from only a few groups (e.g. one directory of one package) is
    split by file instead, so it still gets validation and test samples; returns those labels."""
    groups_per_label: dict[str, set[str]] = defaultdict(set)
    for r in recs:
        groups_per_label[_primary(r)].add(r["group"])
    few = {k for k, g in groups_per_label.items() if len(g) < min_groups}
    for r in recs:
        if _primary(r) in few and "path" in r["prov"]:
            r["group"] = f"{r['group']}|{r['prov']['path']}"
    return few


def _assign_splits(recs: list[dict[str, Any]], mins: dict[str, int]) -> None:
    """Splits by group (hash of its name, 80/10/10), then whole groups moved from train so every
    primary label has validation and test samples."""
    split_of: dict[str, str] = {}
    for r in recs:
        g = r["group"]
        if g not in split_of:
            x = _h("split:" + g) % 100
            split_of[g] = "train" if x < 80 else "val" if x < 90 else "test"
    groups_by_label: dict[str, Counter[str]] = defaultdict(Counter)
    for r in recs:
        key = next((f"{h}={r['labels'][h]}" for h in PRIMARY if h in r["labels"]), "?")
        groups_by_label[key][r["group"]] += 1
    for _key, gc in sorted(groups_by_label.items()):
        total = sum(gc.values())
        for want in ("test", "val"):
            have = sum(n for g, n in gc.items() if split_of[g] == want)
            cands = sorted((g for g in gc if split_of[g] == "train"), key=lambda g: _h(want + g))
            while have < max(mins[want], 0.1 * total) and cands and \
                    sum(n for g, n in gc.items() if split_of[g] == "train") > 0.6 * total:
                g = cands.pop()
                split_of[g] = want
                have += gc[g]
        # and back: a label whose big groups all hashed to val/test (Ada: a 861-sample package in
        # val, 161 left to train) gets whole groups back while the donor keeps its own share
        n_in: Counter[str] = Counter()
        for g, n in gc.items():
            n_in[split_of[g]] += n
        for donor in ("val", "test"):
            keep = max(mins[donor], 0.1 * total)
            for g in sorted((g for g in gc if split_of[g] == donor), key=lambda g: -gc[g]):
                if n_in["train"] >= max(mins["train"], 0.5 * total):
                    break
                if n_in[donor] - gc[g] >= keep:
                    split_of[g] = "train"
                    n_in[donor] -= gc[g]
                    n_in["train"] += gc[g]
    for r in recs:
        r["split"] = split_of[r["group"]]


def _drop_thin_labels(recipe: Recipe, spec: dict[str, Any], labels: dict[str, set[str]],
                      recs: list[dict[str, Any]], mins: dict[str, int]
                      ) -> tuple[dict[str, dict[str, Counter[str]]], dict[str, dict[str, str]]]:
    """Labels with too few real samples in a split (and those the recipe drops) leave the spec
    and the samples; returns the counts per head, split and label, and the dropped labels."""
    counts: dict[str, dict[str, Counter[str]]] = {h: {s: Counter() for s in SPLITS} for h in labels}
    for r in recs:
        for head, val in r["labels"].items():
            for v in (val if isinstance(val, list) else [val]):
                counts[head][r["split"]][v] += 1
    dropped: dict[str, dict[str, str]] = defaultdict(dict)
    for h in spec["heads"]:
        for lab in h["labels"]:
            c = {s: counts[h["name"]][s][lab] for s in SPLITS}
            if any(c[s] < mins[s] for s in SPLITS):
                why = "not enough real samples: " + ", ".join(f"{s} {c[s]} < {mins[s]}"
                                                           for s in SPLITS if c[s] < mins[s])
                dropped[h["name"]][lab] = why
    for head, d in recipe.data.get("dropped_labels", {}).items():  # decided by earlier builds
        for lab, why in d.items():
            dropped[head].setdefault(lab, why)
    for r in recs:
        for head in list(r["labels"]):
            val = r["labels"][head]
            if isinstance(val, list):
                r["labels"][head] = [v for v in val if v not in dropped.get(head, {})]
            elif val in dropped.get(head, {}):
                del r["labels"][head]
    return counts, dropped


def _write_manifests(out: Path, spec: dict[str, Any], dropped: dict[str, dict[str, str]],
                     recs: list[dict[str, Any]]) -> None:
    """The effective spec (dropped labels removed), one manifest per split, provenance."""
    eff = json.loads(json.dumps(spec))
    for h in eff["heads"]:
        h["labels"] = [x for x in h["labels"] if x not in dropped.get(h["name"], {})]
    (out / "spec.json").write_text(json.dumps(eff, indent=1) + "\n")
    recs.sort(key=lambda r: (r["split"], r["source"], r["id"]))
    files = {s: (out / f"{s}.jsonl").open("w", encoding="utf-8") for s in SPLITS}
    with (out / "provenance.jsonl").open("w", encoding="utf-8") as prov:
        for r in recs:
            m = {"id": r["id"], "path": r["path"], "labels": r["labels"], "source": r["source"],
                 "producer": r["producer"], "split": r["split"]}
            if "orig_size" in r:
                m["orig_size"] = r["orig_size"]
            files[r["split"]].write(json.dumps(m, ensure_ascii=False) + "\n")
            prov.write(json.dumps({"id": r["id"], "sha256": r["id"], "source": r["source"],
                                   "producer": r["producer"], "split": r["split"], **r["prov"]}, ensure_ascii=False) + "\n")
    for f in files.values():
        f.close()


def _refresh_risk(out: Path, recs: list[dict[str, Any]]) -> None:
    """Re-run the current detectors over harvested samples, so their risk labels follow
    ``risk.detect`` even when the harvest stage was reused from a build with older detectors, and
    label every sample that has none (binary formats: a secret in an executable's strings is a
    finding, and a model trained without risk targets on binaries flags them at random).
    Generated samples keep theirs (the generator knows what it planted, e.g. phone numbers)."""
    unreadable = 0
    for r in recs:
        planted = r["source"].startswith(("risk:", "gen:")) and "risk" in r["labels"]
        if not planted:
            try:
                r["labels"]["risk"] = risk.detect(_blob(out, r))
            except OSError:
                unreadable += 1  # keeps the label its harvest gave it
    if unreadable:
        log.warning("risk labels not refreshed for %d samples whose blob could not be read",
                    unreadable)


def _primary(r: dict[str, Any]) -> str:
    return next((f"{h}={r['labels'][h]}" for h in PRIMARY if h in r["labels"]), "?")


def _card(recipe: Recipe, recs: list[dict[str, Any]], counts: Any, dropped: Any,
          failures: dict[str, str], missing: list[str], bad: Counter[str], secs: float
          ) -> dict[str, Any]:
    per_head: dict[str, dict[str, dict[str, int]]] = {}
    for head, by_split in counts.items():
        labs = sorted(set().union(*[set(c) for c in by_split.values()]))
        per_head[head] = {lab: {s: by_split[s][lab] for s in SPLITS} for lab in labs}
    src = Counter(r["source"] for r in recs)
    by_src: dict[str, Counter[str]] = defaultdict(Counter)
    for r in recs:
        by_src[r["source"]][r["split"]] += 1
    return {
        "recipe": recipe.name, "recipe_version": recipe.data.get("version", 1),
        "total": len(recs), "splits": dict(Counter(r["split"] for r in recs)),
        "per_head": per_head, "dropped_labels": dropped, "sources": dict(src.most_common()),
        "sources_by_split": {k: dict(by_src[k]) for k, _ in src.most_common()},
        "failed_sources": failures, "skipped_generators": missing,
        "rejected_labels": dict(bad.most_common(50)), "build_seconds": round(secs),
        "notes": recipe.data.get("notes", []),
    }


def _card_md(card: dict[str, Any]) -> str:
    L = [f"# Dataset card: {card['recipe']} corpus", "",
         f"{card['total']} samples: " + ", ".join(f"{s} {card['splits'].get(s, 0)}" for s in SPLITS)
         + f"; this run took {card['build_seconds']} s (finished stages of earlier runs are reused).",
         "",
         "Splits are by source group (package directory, document or generator batch), decided by a "
         "hash of the group name; blobs are deduplicated by SHA-256, so no content is in two splits. "
         "Samples per (source package, label) and per label are capped.", ""]
    L += ["## What was tried, and notes", ""] + [f"- {n}" for n in card["notes"]] + [""]
    L += ["## Dropped labels", ""]
    for head, d in card["dropped_labels"].items():
        for lab, why in d.items():
            L.append(f"- `{head}={lab}`: {why}")
    L += ["", "## Counts per head and label (train / val / test)", ""]
    for head, d in card["per_head"].items():
        L += [f"### {head}", "", "| label | train | val | test |", "|---|---:|---:|---:|"]
        for lab, c in d.items():
            L.append(f"| {lab} | {c['train']} | {c['val']} | {c['test']} |")
        L.append("")
    L += ["## Failed sources", ""] + [f"- {k}: {v}" for k, v in card["failed_sources"].items()]
    L += ["", "## Skipped or failed generators", ""] + [f"- {m}" for m in card["skipped_generators"]]
    L += ["", "## Samples per source (top 150)", "", "| source | samples | train | val | test |",
          "|---|---:|---:|---:|---:|"]
    for k, v in list(card["sources"].items())[:150]:
        s = card["sources_by_split"].get(k, {})
        L.append(f"| {k} | {v} | {s.get('train', 0)} | {s.get('val', 0)} | {s.get('test', 0)} |")
    L += ["", "Labels split by file (too few source groups): "
          + (", ".join(f"`{x}`" for x in card.get("split_by_file", [])) or "none")]
    L += _breadth_md(card)
    return "\n".join(L) + "\n"


def _breadth_md(card: dict[str, Any]) -> list[str]:
    """Card sections: producers per label, the comparison with the last good build, tolerance."""
    cap = card.get("producer_cap", {})
    L = ["", "## Producers per label", "",
         f"A producer is the upstream project, repository or generator a sample comes from. No "
         f"producer may hold more than {cap.get('max_share', 0):.0%} of a fine label's samples; "
         f"labels with too few producers keep their data and are marked *cap unmet*. "
         f"{len(card.get('under_producer_floor', []))} labels are under their producer floor.", ""]
    for head, d in card.get("producers", {}).items():
        L += [f"### {head}", "", "| label | samples train / val / test | producers train / val / "
              "test | producers | top producer (train share) | floor |", "|---|---|---|---:|---|---|"]
        for lab, row in d.items():
            s, p = row["samples"], row["producers"]
            flags = (["**under floor**"] if row["under_floor"] else []) + (
                ["*cap unmet*"] if f"{head}={lab}" in cap.get("unmet", {}) else [])
            L.append(f"| {lab} | {s['train']} / {s['val']} / {s['test']} | {p['train']} / "
                     f"{p['val']} / {p['test']} | {row['producers_total']} | {row['top_producer']}"
                     f" ({row['top_share']:.0%}) | {row['floor']} {' '.join(flags)} |")
        L.append("")
    cmp_ = card.get("comparison", {})
    L += ["## Compared with the last good build", ""]
    if not cmp_.get("baseline"):
        L.append("No baseline: no last good build in this folder and no expected counts beside "
                 "the recipe.")
    else:
        L += [f"Baseline: `{cmp_['baseline']}`. Appeared: "
              + (", ".join(f"`{x}`" for x in cmp_["appeared"]) or "none") + ". Disappeared: "
              + (", ".join(f"`{x}`" for x in cmp_["disappeared"]) or "none") + ".", "",
              "| head | label | before | now | change |", "|---|---|---:|---:|---:|"]
        for head, rows in cmp_["labels"].items():
            for lab, r in rows.items():
                if r["delta"]:
                    ch = f"{r['change']:+.1%}" if r["change"] is not None else "new"
                    L.append(f"| {head} | {lab} | {r['before']} | {r['now']} | {ch} |")
    tol = card.get("tolerance", {})
    L += ["", "## Failure tolerance", "",
          "Passed." if tol.get("passed") else "**Degraded beyond its tolerance.**", "",
          "| kind | entries | failed | share | limit |", "|---|---:|---:|---:|---:|"]
    for k, v in tol.get("kinds", {}).items():
        L.append(f"| {k} | {v['entries']} | {v['failed']} | {v['share']:.1%} | {v['limit']:.0%}"
                 + (" **over**" if v["over"] else "") + " |")
    fell = tol.get("labels_fell", {})
    if fell:
        L += ["", f"Labels more than {tol['max_label_drop']:.0%} below the baseline: "
              + ", ".join(f"`{k}` {r['before']} -> {r['now']}" for k, r in fell.items())]
    lost = tol.get("labels_lost", [])
    if lost:
        L += ["", "Labels the baseline had enough samples to keep, dropped by this build for too "
              "few: " + ", ".join(f"`{k}`" for k in lost)]
    return L


def check_wild_independence(recipe: Recipe) -> None:
    """A corpus recipe names no producer of the wild suite (its recipes pin them); RecipeError
    naming each one otherwise. The wild suite measures generalization only while it stays apart."""
    from picohead.data.producers import wild_producers

    wp = wild_producers()
    bad = [f"{e['kind']}:{e.get('repo') or e['name']}" for e in recipe.entries
           if wp.claims(f"{e['kind']}:{e.get('repo') or e['name']}", e.get("project"))]
    if bad:
        raise RecipeError(f"recipe {recipe.name!r}: {len(bad)} entries are producers of the wild "
                          f"suite (picohead/recipes/wild): {', '.join(bad[:10])}")


def wild_hashes(manifest: Path | None) -> set[str]:
    """Content hashes of a built wild suite (its ``manifest.jsonl``), or none without one."""
    if manifest is None:
        return set()
    with open(manifest, encoding="utf-8") as f:
        return {json.loads(line)["id"] for line in f if line.strip()}


def build(recipe: Recipe, *, out: Path, cache: Path, jobs: int = 2, mirrors: Path | None = None,
          wild_manifest: Path | None = None, allow_degraded: bool = False) -> dict[str, Any]:
    """Run every stage (skipping finished ones) and write the corpus; returns the card.
    ``mirrors``: the folder of git mirrors ``git`` entries read; ``wild_manifest``: a built wild
    suite whose content the corpus must not hold (dropped by hash). A build whose failures exceed
    the recipe's tolerance (``picohead.data.tolerance``) still writes everything, then raises
    DegradedBuildError unless ``allow_degraded``."""
    t0 = time.time()
    check_wild_independence(recipe)
    out.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    spec, labels = _spec_labels(recipe.spec_path)
    failures: dict[str, str] = {}
    missing: list[str] = []
    stage_sources(recipe, out, cache, jobs, labels, failures, mirrors)
    stage_risk(recipe, out, int(recipe.setting("risk_per_label", 1500)),
               float(recipe.setting("risk_short_share", 0.0)))
    stage_formats(recipe, out, cache, jobs, missing)
    random.seed(0)
    _ = stage_path
    card = finalize(recipe, out, spec, labels, failures, missing, t0,
                    exclude=wild_hashes(wild_manifest))
    if not card["tolerance"]["passed"]:
        if not allow_degraded:
            raise DegradedBuildError(card["tolerance"])
        log.warning("%s (proceeding: --allow-degraded)", DegradedBuildError(card["tolerance"]))
    return card
