"""A tiny corpus built offline from local fixture "packages" laid out in a pre-filled cache."""

from __future__ import annotations

import gzip
import importlib.util
import json
import shutil
import struct
from pathlib import Path

import pytest

from picohead.data import risk
from picohead.data.build import _refresh_risk, build
from picohead.data.recipe import RecipeError, check_reserved, load_recipe, reserved_path
from picohead.data.store import BlobStore

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "picohead" / "recipes" / "content" / "spec.json"
# the crypto generator needs the optional 'data' extra (cryptography); the others only the stdlib
HAVE_CRYPTO = importlib.util.find_spec("cryptography") is not None
GENERATORS = ["svg", "sqlite"] + (["crypto"] if HAVE_CRYPTO else [])

PY = "".join(f"def f{i}(x):\n    '''Return x plus {i}.'''\n    return x + {i}\n\n" for i in range(80))
GO = "".join(f"func F{i}(x int) int {{\n\treturn x + {i}\n}}\n\n" for i in range(80))


def _mo(pairs: list[tuple[str, str]]) -> bytes:
    """A little-endian gettext catalogue (header entry first)."""
    pairs = [("", "Content-Type: text/plain; charset=UTF-8\n")] + pairs
    n = len(pairs)
    ids = b"".join(k.encode() + b"\0" for k, _ in pairs)
    strs = b"".join(v.encode() + b"\0" for _, v in pairs)
    o_orig, o_tr = 28, 28 + 8 * n
    base = 28 + 16 * n
    orig_tab, tr_tab, off = b"", b"", base
    for k, _ in pairs:
        orig_tab += struct.pack("<II", len(k.encode()), off)
        off += len(k.encode()) + 1
    for _, v in pairs:
        tr_tab += struct.pack("<II", len(v.encode()), off)
        off += len(v.encode()) + 1
    return struct.pack("<IIIIIII", 0x950412DE, 0, n, o_orig, o_tr, 0, 0) + orig_tab + tr_tab + ids + strs


def _pkg(cache: Path, kind: str, name: str, files: dict[str, bytes]) -> None:
    root = cache / "x" / kind / name
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (root / ".done").write_text("1.0-1")


DE = ["Die Datei konnte nicht geöffnet werden, weil sie nicht existiert.",
      "Zeige diese Hilfe an und beende das Programm danach sofort.",
      "Es wurde kein gültiger Name für das Verzeichnis angegeben."]
FR = ["Impossible d'ouvrir le fichier parce qu'il n'existe pas encore.",
      "Afficher cette aide et quitter le programme immédiatement.",
      "Aucun nom valide n'a été donné pour le répertoire demandé."]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("corpus")
    cache, out, rdir = tmp / "cache", tmp / "out", tmp / "recipe"
    files_a = {f"usr/lib/a/mod{d}/f{i}.py": (PY + f"# {d} {i}\n").encode() for d in range(6) for i in range(4)}
    files_a["usr/lib/a/mod0/same.go"] = GO.encode()  # also in pkg-b: must be deduplicated
    files_a["usr/share/locale/de/LC_MESSAGES/a.mo"] = _mo([(f"msg {i}", DE[i % 3] + f" ({i})") for i in range(60)])
    files_a["usr/share/locale/fr/LC_MESSAGES/a.mo"] = _mo([(f"msg {i}", FR[i % 3] + f" ({i})") for i in range(60)])
    files_a["usr/share/locale/fr/LC_MESSAGES/gnome-shell.mo"] = _mo([("x", FR[0] * 20)])
    _pkg(cache, "deb", "pkg-a", files_a)
    files_b = {f"src/p{d}/g{i}.go": (GO + f"// {d} {i}\n").encode() for d in range(6) for i in range(4)}
    files_b["src/p0/same.go"] = GO.encode()
    files_b["usr/share/man/de/man1/x.1.gz"] = gzip.compress(
        (".TH X 1\n.SH NAME\nx \\- " + " ".join(DE) * 4 + "\n.SH BESCHREIBUNG\n" + " ".join(DE) * 6).encode())
    _pkg(cache, "deb", "pkg-b", files_b)
    rdir.mkdir()
    shutil.copy(SPEC, rdir / "spec.json")
    recipe = {
        "name": "tiny", "version": 1,
        "settings": {"cap_per_source_label": 50, "cuts_per_file": 1, "per_format": 4,
                     "risk_per_label": 3, "risk_short_share": 0.5, "generators": GENERATORS, "min_groups_per_label": 0,
                     "min_per_split": {"train": 0, "val": 0, "test": 0}},
        "sources": [
            {"kind": "deb", "name": "pkg-a", "version": "1.0-1", "licence": "MIT",
             "take": [{"ext": [".py"], "code": "python"}, {"ext": [".go"], "code": "go"},
                      {"ext": [".mo"], "under": ["/locale/"], "text_from": "mo"}]},
            {"kind": "deb", "name": "pkg-b", "version": "1.0-1", "licence": "BSD-3-Clause",
             "take": [{"ext": [".go"], "code": "go"},
                      {"ext": [".gz"], "under": ["share/man/"], "text_from": "man", "gunzip": True}],
             "split_by": "dir"},
        ],
    }
    (rdir / "recipe.json").write_text(json.dumps(recipe))
    build(load_recipe(str(rdir)), out=out, cache=cache, jobs=1)
    return out


def _manifest(out: Path) -> list[dict]:
    return [json.loads(line) for s in ("train", "val", "test")
            for line in (out / f"{s}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_labels_are_in_spec_and_coherent(corpus: Path) -> None:
    spec = json.loads(SPEC.read_text())
    heads = {h["name"]: set(h["labels"]) for h in spec["heads"]}
    recs = _manifest(corpus)
    assert recs
    for r in recs:
        for head, val in r["labels"].items():
            for v in val if isinstance(val, list) else [val]:
                assert v in heads[head], (head, v)
        assert (corpus / r["path"]).is_file()
        assert "risk" in r["labels"]  # every sample, binaries included
        if "code_lang" in r["labels"]:
            assert r["labels"]["coarse"] == "code"
    langs = {r["labels"].get("code_lang") for r in recs} | {r["labels"].get("text_lang") for r in recs}
    assert {"python", "go", "de", "fr"} <= langs
    mimes = {r["labels"].get("mime") for r in recs}
    assert {"image/svg+xml", "application/vnd.sqlite3"} <= mimes
    if HAVE_CRYPTO:
        assert "application/pkix-cert" in mimes


def test_splits_by_group_and_dedup(corpus: Path) -> None:
    recs = _manifest(corpus)
    ids = [r["id"] for r in recs]
    assert len(ids) == len(set(ids)), "a blob appears twice"
    prov = {json.loads(line)["id"]: json.loads(line)
            for line in (corpus / "provenance.jsonl").read_text().splitlines()}
    group_split: dict[str, set[str]] = {}
    for r in recs:
        p = prov[r["id"]]
        if r["source"].startswith("deb:") and "/" in p["path"]:
            key = r["source"] + "/" + p["path"].rsplit("/", 1)[0]
            if p["path"].endswith((".py", ".go")):
                group_split.setdefault(key, set()).add(r["split"])
    assert group_split and all(len(s) == 1 for s in group_split.values())
    assert {r["split"] for r in recs} == {"train", "val", "test"}


def test_provenance_and_card(corpus: Path) -> None:
    recs = _manifest(corpus)
    prov = [json.loads(line) for line in (corpus / "provenance.jsonl").read_text().splitlines()]
    assert {p["id"] for p in prov} == {r["id"] for r in recs}
    deb = [p for p in prov if p["source"] == "deb:pkg-a"]
    assert deb and all(p["version"] == "1.0-1" and p["licence"] == "MIT" and p["path"] for p in deb)
    card = json.loads((corpus / "card.json").read_text())
    assert card["total"] == len(recs)
    assert sum(card["splits"].values()) == len(recs)
    assert "code_lang" in card["per_head"] and "python" in card["per_head"]["code_lang"]
    assert (corpus / "DATASET_CARD.md").read_text().startswith("# Dataset card")


def test_reserved_files_and_packages_excluded(corpus: Path) -> None:
    prov = [json.loads(line) for line in (corpus / "provenance.jsonl").read_text().splitlines()]
    assert not any("gnome" in p["path"] for p in prov)
    assert reserved_path("usr/share/locale/fr/LC_MESSAGES/gnome-shell.mo")
    for bad in ("gnome-shell", "libgnome-desktop-3-20", "evolution-data-server", "yelp-xsl",
                "groff", "fonts-font-awesome", "libreoffice-common"):
        with pytest.raises(RecipeError):
            check_reserved([{"kind": "deb", "name": bad, "take": []}])


def test_content_recipe_has_no_reserved_package() -> None:
    r = load_recipe("content")
    assert len(r.entries) > 100
    check_reserved(r.entries)
    names = {e["name"] for e in r.entries}
    assert not {n for n in names if n.startswith(("gnome", "libgnome", "evolution", "yelp"))}


def test_resume_skips_finished_stages(corpus: Path) -> None:
    stages = sorted((corpus / ".stages").glob("*.jsonl"))
    assert any(p.name.startswith("src_deb_pkg-a") for p in stages)
    assert any(p.name == "gen_svg.jsonl" for p in stages)


def test_risk_samples_include_short_excerpts(corpus: Path) -> None:
    recs = [r for r in _manifest(corpus) if r["source"].startswith("risk:")]
    assert recs
    texts = {r["id"]: (corpus / r["path"]).read_bytes() for r in recs}
    short = [r for r in recs if texts[r["id"]].count(b"\n") <= 5]
    assert short, "risk_short_share=0.5 made no excerpt"
    for r in short:  # labels are recomputed on the excerpt, not inherited from the full file
        got = set(risk.detect(texts[r["id"]]))
        assert set(r["labels"]["risk"]) - {"phone"} == got - {"phone"}, texts[r["id"]][:200]
        assert set(r["labels"]) == {"risk"}  # no host language/format labels on a snippet


def test_refresh_risk_relabels_all_but_planted_labels(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    leak = b"config:\n  contact: ops@acme-corp.io\n"
    stale = store.record(leak, {"coarse": "code", "risk": []}, source="deb:x", group="g", prov={})
    word = store.record(b"--password=SALASANA", {"risk": ["password"]}, source="npm:y", group="g",
                        prov={})
    planted = store.record(b"tel +44 20 7946 0958", {"risk": ["phone"]}, source="risk:deb:x",
                           group="g", prov={})
    binary = store.record(b"\x00\x01", {"coarse": "image"}, source="gen:images", group="g", prov={})
    elf = store.record(b"\x7fELF\x02\x00token=ghp_" + b"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A" + b"\x00",
                       {"coarse": "executable"}, source="deb:z", group="g", prov={})
    pem = store.record(b"-----BEGIN PRIVATE KEY-----", {"risk": []}, source="gen:pem", group="g",
                       prov={})
    _refresh_risk(tmp_path, [stale, word, planted, binary, elf, pem])
    assert stale["labels"]["risk"] == ["email"]  # the detector of this build sees it
    assert word["labels"]["risk"] == []  # an older detector's label is dropped
    assert planted["labels"]["risk"] == ["phone"]  # the generator's own label stands
    assert binary["labels"]["risk"] == []  # binaries get labels too (no flag here)
    assert elf["labels"]["risk"] == ["api_key"]  # a token in an executable's strings is a finding
    assert pem["labels"]["risk"] == []  # a generator's planted label stands


def test_wild_suite_content_is_dropped_from_the_corpus(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(corpus, out)
    victim = next(r for r in _manifest(out) if r["labels"].get("code_lang") == "go")
    wild = tmp_path / "wild-manifest.jsonl"
    wild.write_text(json.dumps({"id": victim["id"]}) + "\n")
    card = build(load_recipe(str(corpus.parent / "recipe")), out=out, cache=corpus.parent / "cache",
                 jobs=1, wild_manifest=wild)
    assert victim["id"] not in {r["id"] for r in _manifest(out)}
    assert card["dropped_as_wild_suite_content"] >= 1


def test_reused_stage_records_get_todays_code_labels(tmp_path: Path) -> None:
    from picohead.data.build import _valid_records
    from picohead.data.labels import code_labels
    from picohead.data.store import write_stage

    store = BlobStore(tmp_path)
    old = store.record(b"import os\n", {"coarse": "code", "modality": "text", "subtype": "source",
                                        "mime": "text/plain", "code_lang": "python"},
                       source="deb:x", group="g", prov={})
    write_stage(tmp_path, "deb:x", [old])
    want = code_labels("python")
    labels = {k: {v} for k, v in want.items()}
    recs, bad, _ = _valid_records(tmp_path, labels, set())
    assert not bad and recs[0]["labels"]["mime"] == want["mime"] != "text/plain"
