"""Pick Debian packages that ship real files of a MIME label and add take rules for them to
``picohead/recipes/content/real_formats.json`` (issue 22: many producers per label).

It reads the archive's file index (``Contents-all.gz``, ``Contents-amd64.gz`` of bookworm main)
and package index (``Packages``, decompressed), and for each label of ``PICK`` keeps the packages
holding at least one file with the label's extension under ``usr/``, leaving out reserved
packages (``picohead.data.recipe.is_reserved``), packages whose project the wild suite pins
(``picohead.data.producers.wild_producers``: a corpus producer may not feed the yardstick) or
whose project owns a repository the wild suite pins, debug
packages and .debs over ``--max-deb-mb``. Candidates are ranked by download size per file they
can give (cheapest first) and at most one package per project and label is kept (two packages of
one upstream project are one producer, and so are one manual's translations), up to ``--want`` packages a label. Each kept package gets
the label's rules (extension, magic prefix where the format has one, 10 files at most), appended
to its entry or to a new one (licence ``see package``).

What it does not do: look inside a package (a file whose bytes lack the magic prefix is dropped
at build time, so an ``.doc`` that is plain text gives nothing: see ``real_formats_counts.py`` for
the listing-based yield and the corpus card for what the build kept) or download anything.

    curl -O http://deb.debian.org/debian/dists/bookworm/main/Contents-all.gz
    curl -O http://deb.debian.org/debian/dists/bookworm/main/Contents-amd64.gz
    lz4 -dc /var/lib/apt/lists/*bookworm_main_binary-amd64_Packages.lz4 > Packages
    python benchmarks/real_formats_pick.py --contents Contents-all.gz Contents-amd64.gz \\
        --packages Packages --write
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from picohead.data.producers import project_of, wild_producers  # noqa: E402
from picohead.data.recipe import is_reserved  # noqa: E402

INCLUDE = ROOT / "picohead" / "recipes" / "content" / "real_formats.json"
CAP = 10  # files per package and rule, as the include file's other rules
# label -> rules (extensions, magic prefix in hex or None); "code" rules label source (HTML is a
# markup language of the code head, so its MIME type comes from the language).
PICK: dict[str, list[dict[str, Any]]] = {
    "application/x-tar": [{"ext": [".tar"]}],
    "application/zip": [{"ext": [".zip"], "magic": "504b0304"}],
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
        [{"ext": [".docx"], "magic": "504b0304"}],
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":
        [{"ext": [".xlsx"], "magic": "504b0304"}],
    "application/vnd.ms-excel": [{"ext": [".xls"], "magic": "d0cf11e0a1b11ae1"}],
    "application/msword": [{"ext": [".doc"], "magic": "d0cf11e0a1b11ae1"}],
    "application/vnd.oasis.opendocument.spreadsheet": [{"ext": [".ods"], "magic": "504b0304"}],
    "application/vnd.oasis.opendocument.text": [{"ext": [".odt"], "magic": "504b0304"}],
    "application/rtf": [{"ext": [".rtf"], "magic": "7b5c727466"}],
    "application/wasm": [{"ext": [".wasm"], "magic": "0061736d"}],
    "application/x-compress": [{"ext": [".Z"], "magic": "1f9d"}],
    "audio/aiff": [{"ext": [".aif", ".aiff"], "magic": "464f524d"}],
    "audio/basic": [{"ext": [".au", ".snd"], "magic": "2e736e64"}],
    "audio/flac": [{"ext": [".flac"], "magic": "664c6143"}],
    "audio/mpeg": [{"ext": [".mp3"], "magic": "494433"}, {"ext": [".mp3"], "magic": "fffb"}],
    "audio/x-voc": [{"ext": [".voc"], "magic": "437265617469766520566f696365"}],
    "video/webm": [{"ext": [".webm"], "magic": "1a45dfa3"}],
    "video/x-matroska": [{"ext": [".mkv"], "magic": "1a45dfa3"}],
    "image/tiff": [{"ext": [".tif", ".tiff"], "magic": "49492a00"},
                   {"ext": [".tif", ".tiff"], "magic": "4d4d002a"}],
    "image/x-portable-anymap": [{"ext": [".pnm", ".ppm", ".pgm", ".pbm"], "magic": "50"}],
    "image/x-tga": [{"ext": [".tga"]}],
    "image/x-pcx": [{"ext": [".pcx"], "magic": "0a"}],
    "image/x-sgi": [{"ext": [".sgi", ".rgb"], "magic": "01da"}],
    "image/webp": [{"ext": [".webp"], "magic": "52494646"}],
    "image/x-icon": [{"ext": [".ico"], "magic": "00000100"}],
    "image/bmp": [{"ext": [".bmp"], "magic": "424d"}],
    "text/html": [{"code": "html", "ext": [".html", ".htm"]}],
    "text/csv": [{"ext": [".csv"]}],
    "application/vnd.openxmlformats-officedocument.presentationml.presentation":
        [{"ext": [".pptx"], "magic": "504b0304"}],
    "application/vnd.ms-powerpoint": [{"ext": [".ppt"], "magic": "d0cf11e0a1b11ae1"}],
    "application/vnd.oasis.opendocument.presentation": [{"ext": [".odp"], "magic": "504b0304"}],
    "application/vnd.tcpdump.pcap": [{"ext": [".pcap"], "magic": "d4c3b2a1"},
                                     {"ext": [".pcap"], "magic": "a1b2c3d4"}],
    "application/x-7z-compressed": [{"ext": [".7z"], "magic": "377abcaf271c"}],
    "application/x-cpio": [{"ext": [".cpio"], "magic": "303730373031"},  # "070701" (newc)
                           {"ext": [".cpio"], "magic": "303730373037"}],  # "070707" (odc)
    "application/zstd": [{"ext": [".zst"], "magic": "28b52ffd"}],
    "application/x-xz": [{"ext": [".xz"], "magic": "fd377a585a00"}],
    "application/pkix-cert": [{"ext": [".der", ".cer"], "magic": "3082"}],
    "application/x-pem-file": [{"ext": [".pem"], "magic": "2d2d2d2d2d424547494e"}],  # -----BEGIN
    # key blocks only: the label is a PGP key, and many .asc files are detached signatures
    "application/pgp-keys": [
        {"ext": [".asc"],  # -----BEGIN PGP PUBLIC KEY BLOCK
         "magic": "2d2d2d2d2d424547494e20504750205055424c4943204b455920424c4f434b"},
        {"ext": [".asc"],  # -----BEGIN PGP PRIVATE KEY BLOCK
         "magic": "2d2d2d2d2d424547494e205047502050524956415445204b455920424c4f434b"}],
    "application/geo+json": [{"ext": [".geojson"]}],
    "image/jp2": [{"ext": [".jp2"], "magic": "0000000c6a502020"}],
    "image/vnd.radiance": [{"ext": [".hdr"], "magic": "233f"}],  # "#?"
    "image/x-sun-raster": [{"ext": [".ras", ".sun"], "magic": "59a66a95"}],
    "image/x-icns": [{"ext": [".icns"], "magic": "69636e73"}],
    "image/x-xbitmap": [{"ext": [".xbm"], "magic": "23646566696e65"}],  # "#define"
    "text/calendar":  # "BEGIN:VCALENDAR"
        [{"ext": [".ics"], "magic": "424547494e3a5643414c454e444152"}],
    "text/vcard": [{"ext": [".vcf"], "magic": "424547494e3a5643415244"}],  # "BEGIN:VCARD"
    "text/x-uuencode": [{"ext": [".uu", ".uue"], "magic": "626567696e20"}],  # "begin "
    "text/tab-separated-values": [{"ext": [".tsv"]}],
    "video/mpeg": [{"ext": [".mpg", ".mpeg"], "magic": "000001ba"},
                   {"ext": [".mpg", ".mpeg"], "magic": "000001b3"}],
    "video/x-flv": [{"ext": [".flv"], "magic": "464c56"}],
    "video/x-msvideo": [{"ext": [".avi"], "magic": "52494646"}],
    # corpus v3: types of the wild suite the MIME head had no label for
    "audio/midi": [{"ext": [".mid", ".midi"], "magic": "4d546864"}],  # "MThd"
    "image/vnd.adobe.photoshop": [{"ext": [".psd"], "magic": "38425053"}],  # "8BPS"
    "application/vnd.ms-fontobject": [{"ext": [".eot"]}],  # no magic prefix ("LP" at 34)
    "image/x-xfig": [{"ext": [".fig"], "magic": "23464947"}],  # "#FIG" (MATLAB .fig is binary)
    "application/xhtml+xml": [{"ext": [".xhtml"]}],
    "audio/x-wavpack": [{"ext": [".wv"], "magic": "7776706b"}],  # "wvpk"
    "application/vnd.ms-cab-compressed": [{"ext": [".cab"], "magic": "4d534346"}],  # "MSCF"
    "application/x-lz4": [{"ext": [".lz4"], "magic": "04224d18"}],
    "image/avif": [{"ext": [".avif"]}],
    # corpus v6: real files for labels picohead/data/program_formats.py writes with one program
    "application/epub+zip": [{"ext": [".epub"], "magic": "504b0304"}],
    "image/vnd.dxf": [{"ext": [".dxf"]}],  # ASCII DXF has no fixed prefix ("  0\nSECTION")
    "application/vnd.oasis.opendocument.text-flat-xml": [{"ext": [".fodt"], "magic": "3c3f786d6c"}],
    "image/x-exr": [{"ext": [".exr"], "magic": "762f3101"}],
    # (not audio/x-musepack: bookworm's .mpc files are ACE's Makefile Project Creator text)
    # (not application/x-coff: bookworm's .obj files are Wavefront meshes in 52 of 54 packages)
    "image/jxl": [{"ext": [".jxl"], "magic": "ff0a"}, {"ext": [".jxl"], "magic": "0000000c4a584c20"}],
    # graph sources: most .dot files in bookworm are Doxygen's; a Word template (.dot) is OLE
    "text/vnd.graphviz": [{"ext": [".dot", ".gv"], "magic": "64696772617068"},  # "digraph"
                          {"ext": [".dot", ".gv"], "magic": "677261706820"},  # "graph "
                          {"ext": [".dot", ".gv"], "magic": "737472696374"}],  # "strict"
    "model/vrml": [{"ext": [".wrl", ".vrml"], "magic": "2356524d4c"}],  # "#VRML"
    "image/x-win-bitmap": [{"ext": [".cur"], "magic": "00000200"}],  # a Windows cursor
    # (not image/x-portable-arbitrarymap: bookworm's .pam files are PAM configuration, bar one)
}
WANT = {"text/html": 60, "image/x-icon": 30, "image/bmp": 30}  # others: --want


def _ext_table(pick: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    return {e: label for label, rules in pick.items() for r in rules for e in r["ext"]}


def read_contents(lines: Iterable[str], pick: dict[str, list[dict[str, Any]]]
                  ) -> dict[str, Counter[str]]:
    """label -> package -> files with one of the label's extensions under ``usr/``, from the
    lines of a Contents index (``PATH  section/package[,section/package...]``)."""
    ext_label = _ext_table(pick)
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for line in lines:
        path, _, pkgs = line.rstrip("\n").rpartition(" ")
        path = path.strip()
        if not path.startswith("usr/") or "." not in path.rsplit("/", 1)[-1]:
            continue
        ext = path[path.rfind("."):]
        label = ext_label.get(ext)  # exact case: the harvester's rules match it exactly
        if label is None:
            continue
        for p in pkgs.split(","):
            out[label][p.rsplit("/", 1)[-1]] += 1
    return out


def read_packages(lines: Iterable[str]) -> dict[str, tuple[int, str]]:
    """package -> (download size in bytes, section) from a Packages index."""
    out: dict[str, tuple[int, str]] = {}
    name, size, section = None, 0, ""
    for line in [*lines, ""]:
        if line.startswith("Package: "):
            name, size, section = line[9:].strip(), 0, ""
        elif line.startswith("Size: "):
            size = int(line[6:])
        elif line.startswith("Section: "):
            section = line[9:].strip()
        elif not line.strip() and name:
            out[name] = (size, section)
            name = None
    return out


# Locale suffixes of translated documentation packages (``developers-reference-ja``,
# ``ubuntu-packaging-guide-epub-pt-br``): one project's manual in many languages is one producer.
_LOCALE = re.compile(
    r"-(?:ar|bg|bn|ca|cs|da|de|el|en|es|et|eu|fa|fi|fr|gl|he|hi|hu|id|it|ja|ko|lt|lv|ml|nb|nl|nn|"
    r"pl|pt|ro|ru|sk|sl|sr|sv|ta|th|tr|uk|vi|zh)(?:-[a-z]{2,4})?$")


# Module packages of one framework (``tryton-modules-account``, ``-stock``, ...): one producer.
_FAMILIES = ("tryton-modules-", "minetest-mod-")


def pick_project(package: str) -> str:
    """The project a package counts as when picking: ``project_of`` after a locale suffix is cut,
    or the framework of a module package."""
    for prefix in _FAMILIES:
        if package.startswith(prefix):
            return prefix.split("-")[0]
    return project_of(f"deb:{_LOCALE.sub('', package)}")


def pick(contents: dict[str, Counter[str]], packages: dict[str, tuple[int, str]], want: int,
         max_bytes: int, excluded: Callable[[str], bool],
         want_per_label: dict[str, int] | None = None) -> dict[str, list[str]]:
    """label -> the packages kept for it (see the module docstring for the rule)."""
    chosen: dict[str, list[str]] = {}
    for label, files in contents.items():
        cands = []
        for p, n in files.items():
            if p not in packages or excluded(p):
                continue
            size, section = packages[p]
            if size > max_bytes or section.endswith("debug"):
                continue
            cands.append((size / min(n, CAP), p))
        kept: list[str] = []
        projects: set[str] = set()
        for _, p in sorted(cands):
            proj = pick_project(p)
            if proj in projects:
                continue
            projects.add(proj)
            kept.append(p)
            if len(kept) >= (want_per_label or {}).get(label, want):
                break
        chosen[label] = kept
    return chosen


def apply(include: dict[str, Any], chosen: dict[str, list[str]],
          table: dict[str, list[dict[str, Any]]]) -> int:
    """Append each chosen package's rules to its entry (a new ``deb`` entry when it has none);
    a rule already there is not added twice. Returns the number of rules added."""
    entries = {e["name"]: e for e in include["sources"] if e.get("kind") == "deb"}
    added = 0
    for label, pkgs in chosen.items():
        for p in pkgs:
            e = entries.get(p)
            if e is None:
                e = {"kind": "deb", "name": p, "version": None, "licence": "see package",
                     "take": []}
                include["sources"].append(e)
                entries[p] = e
            for spec in table[label]:
                rule: dict[str, Any] = ({"code": spec["code"]} if "code" in spec
                                        else {"mime": label})
                rule.update({"ext": list(spec["ext"]), "under": ["usr/"]})
                if spec.get("magic"):
                    rule["magic"] = spec["magic"]
                rule["cap"] = CAP
                if rule not in e["take"]:
                    e["take"].append(rule)
                    added += 1
    return added


def default_excluded() -> Callable[[str], bool]:
    """Reserved packages and those the wild suite claims (``CorpusProducers.claims``: its
    project, or the owner of one of its repositories: ``golang-github-docker-docker-dev`` is
    project ``docker``, owner of the pinned docker/awesome-compose)."""
    wild = wild_producers()
    return lambda p: is_reserved(p) or wild.claims(f"deb:{p}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--contents", nargs="+", type=Path, required=True, help="Contents-*.gz files")
    ap.add_argument("--packages", type=Path, required=True, help="a decompressed Packages index")
    ap.add_argument("--include", type=Path, default=INCLUDE)
    ap.add_argument("--labels", default=",".join(PICK), help="comma-separated labels of PICK")
    ap.add_argument("--want", type=int, default=40, help="packages per label at most")
    ap.add_argument("--max-deb-mb", type=float, default=40.0)
    ap.add_argument("--write", action="store_true", help="write the rules into --include")
    a = ap.parse_args(argv)
    unknown = [lab for lab in a.labels.split(",") if lab not in PICK]
    if unknown:
        print(f"error: no rules for {', '.join(unknown)} (labels: {', '.join(PICK)})",
              file=sys.stderr)
        return 2
    table = {lab: PICK[lab] for lab in a.labels.split(",")}
    contents: dict[str, Counter[str]] = {lab: Counter() for lab in table}  # rules in PICK's order
    for path in a.contents:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            for label, c in read_contents(f, table).items():
                contents[label].update(c)
    packages = read_packages(a.packages.read_text(encoding="utf-8", errors="replace").splitlines())
    chosen = pick(contents, packages, a.want, int(a.max_deb_mb * 2**20), default_excluded(), WANT)
    for label, pkgs in chosen.items():
        mb = sum(packages[p][0] for p in pkgs) / 2**20
        print(f"{label:75} {len(pkgs):3d} packages ({len(contents[label])} hold files), "
              f"{mb:.1f} MB")
    if a.write:
        include = json.loads(a.include.read_text(encoding="utf-8"))
        n = apply(include, chosen, table)
        a.include.write_text(json.dumps(include, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
        print(f"{n} rules added to {a.include}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
