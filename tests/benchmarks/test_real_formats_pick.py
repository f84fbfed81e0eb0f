"""benchmarks/real_formats_pick.py: packages chosen from a Contents index, rules added once."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import real_formats_pick as rfp  # noqa: E402

from picohead.data.recipe import load_recipe  # noqa: E402

CONTENTS = """\
usr/share/doc/a/x.TAR                                        games/alpha-data
usr/share/a/y.tar                                            games/alpha-data
usr/share/b/z.tar                                            games/alpha-doc
usr/share/c/big.tar                                          games/huge-data
usr/share/d/w.tar                                            debug/delta-dbgsym
usr/share/e/v.tar                                            gnome/gnome-tarballs
usr/share/f/u.tar                                            games/beta,games/gamma
usr/share/f/readme.txt                                       games/beta
etc/skip.tar                                                 admin/eta
usr/share/g/t.Z                                              utils/zeta
usr/share/g/t.z                                              utils/zeta-lower
"""
PACKAGES = """\
Package: alpha-data
Size: 2000
Section: games

Package: alpha-doc
Size: 100
Section: doc

Package: huge-data
Size: 999999999
Section: games

Package: delta-dbgsym
Size: 10
Section: debug

Package: gnome-tarballs
Size: 10
Section: gnome

Package: beta
Size: 500
Section: games

Package: gamma
Size: 700
Section: games

Package: zeta
Size: 5
Section: utils
"""


def test_contents_are_read_by_extension_under_usr_only() -> None:
    got = rfp.read_contents(CONTENTS.splitlines(), rfp.PICK)
    # x.TAR is not counted: a rule's extensions match file names exactly at build time
    assert got["application/x-tar"] == {"alpha-data": 1, "alpha-doc": 1, "huge-data": 1,
                                        "delta-dbgsym": 1, "gnome-tarballs": 1, "beta": 1,
                                        "gamma": 1}
    assert got["application/x-compress"] == {"zeta": 1}  # .Z, not .z


def test_pick_keeps_cheap_packages_one_per_project_and_leaves_out_the_excluded() -> None:
    contents = rfp.read_contents(CONTENTS.splitlines(), rfp.PICK)
    packages = rfp.read_packages(PACKAGES.splitlines())
    assert packages["alpha-doc"] == (100, "doc")
    chosen = rfp.pick(contents, packages, want=10, max_bytes=10**6,
                      excluded=lambda p: p == "gamma" or p.startswith("gnome"))
    tar = chosen["application/x-tar"]
    # alpha-doc (100 B a file) before beta (500) and alpha-data (1000 a file, same project as
    # alpha-doc: left out); huge-data over the size bound, the debug package and excluded ones out
    assert tar == ["alpha-doc", "beta"]
    assert rfp.pick(contents, packages, want=1, max_bytes=10**6,
                    excluded=lambda p: p == "gnome-tarballs")["application/x-tar"] == ["alpha-doc"]
    excluded = rfp.default_excluded()
    assert excluded("gnome-tarballs")  # reserved, whatever the wild suite pins
    # project docker owns docker/awesome-compose, which the wild suite pins (the independence
    # check refused the first pick, which held this package)
    assert excluded("golang-github-docker-docker-dev") and not excluded("xlsx2csv")


def test_apply_adds_rules_once_to_old_and_new_entries() -> None:
    include = {"sources": [{"kind": "deb", "name": "beta", "version": None, "licence": "MIT",
                            "take": [{"mime": "image/png", "ext": [".png"]}]}]}
    chosen = {"application/x-tar": ["beta", "alpha-doc"], "text/html": ["beta"]}
    assert rfp.apply(include, chosen, rfp.PICK) == 3
    assert rfp.apply(include, chosen, rfp.PICK) == 0
    beta = include["sources"][0]
    assert beta["licence"] == "MIT" and len(beta["take"]) == 3
    assert {"code": "html", "ext": [".html", ".htm"], "under": ["usr/"], "cap": 10} in beta["take"]
    new = include["sources"][1]
    assert new["name"] == "alpha-doc" and new["take"] == [
        {"mime": "application/x-tar", "ext": [".tar"], "under": ["usr/"], "cap": 10}]


def test_every_pick_label_is_a_label_of_the_content_spec() -> None:
    spec = json.loads((ROOT / "picohead" / "recipes" / "content" / "spec.json").read_text())
    mime = next(h for h in spec["heads"] if h["name"] == "mime")["labels"]
    assert set(rfp.PICK) <= set(mime)
    load_recipe("content")  # the include file the script wrote still loads


def test_main_writes_an_include_file(tmp_path: Path) -> None:
    contents = tmp_path / "Contents-all.gz"
    with gzip.open(contents, "wt") as f:
        f.write(CONTENTS)
    (tmp_path / "Packages").write_text(PACKAGES)
    inc = tmp_path / "real_formats.json"
    inc.write_text(json.dumps({"notes": [], "sources": []}))
    assert rfp.main(["--contents", str(contents), "--packages", str(tmp_path / "Packages"),
                     "--include", str(inc), "--labels", "application/x-tar", "--write"]) == 0
    names = [e["name"] for e in json.loads(inc.read_text())["sources"]]
    assert "alpha-doc" in names and "gnome-tarballs" not in names
    assert rfp.main(["--contents", str(contents), "--packages", str(tmp_path / "Packages"),
                     "--labels", "no/such"]) == 2


def test_a_manuals_translations_are_one_project() -> None:
    """developers-reference-ja and -fr, ubuntu-packaging-guide-epub-pt-br: one producer each;
    names that only end like a locale in a longer word stay apart."""
    same = ["developers-reference", "developers-reference-ja", "developers-reference-fr"]
    assert len({rfp.pick_project(p) for p in same}) == 1
    assert rfp.pick_project("ubuntu-packaging-guide-epub-pt-br") == rfp.pick_project(
        "ubuntu-packaging-guide-epub")
    assert rfp.pick_project("debian-edu-doc-nb-no") == rfp.pick_project("debian-edu-doc-zh-cn")
    assert rfp.pick_project("libfoo-dev") != rfp.pick_project("libbar-dev")
    assert rfp.pick_project("tryton-modules-sale") == rfp.pick_project("tryton-modules-stock")
    assert rfp.pick_project("python3-pyes") != rfp.pick_project("python3-py")
