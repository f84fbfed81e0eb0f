"""Android application packages (APK) written from the formats' specifications.

``package`` writes a ZIP archive laid out as Android's build tools write one: a binary-XML
``AndroidManifest.xml`` (string pool, resource map, namespace and element chunks), a
``classes.dex`` (a DEX header with its Adler-32 checksum and SHA-1 signature, string data of the
app's classes and methods, code words), a ``resources.arsc`` table (string pool and package
chunk) stored uncompressed, a few resource files, and a signature: v1 (``META-INF/MANIFEST.MF``,
``CERT.SF``, ``CERT.RSA``; on some, jarsigner's order with the manifest first) and/or v2/v3 (an
APK Signing Block, magic ``APK Sig Block 42``, between the entries and the central directory,
whose offset the end record then names). The entries come in the orders the tools write
(``resources.arsc``, the manifest or ``classes.dex`` first), the first one sometimes with the JAR
marker extra field (``FE CA``), and stored data is usually 4-byte aligned with zipalign's
``0xD935`` extra field.

What it does not do: produce an app that installs or runs (the code is not a program, the
certificate and signatures are random bytes of the right shape), or read APKs.
"""

from __future__ import annotations

import hashlib
import io
import random
import struct
import zipfile
import zlib

ANDROID_NS = "http://schemas.android.com/apk/res/android"
ATTRS = {"versionCode": 0x0101021B, "versionName": 0x0101021C, "minSdkVersion": 0x0101020C,
         "targetSdkVersion": 0x01010270, "name": 0x01010003, "label": 0x01010001,
         "icon": 0x01010002, "exported": 0x01010010}


def _string_pool(strings: list[str], utf8: bool) -> bytes:
    data, offs = bytearray(), []
    for s in strings:
        offs.append(len(data))
        if utf8:
            b = s.encode()
            data += bytes([len(s), len(b)]) + b + b"\0"
        else:
            data += struct.pack("<H", len(s)) + s.encode("utf-16-le") + b"\0\0"
    data += b"\0" * (-len(data) % 4)
    start = 28 + 4 * len(strings)
    return (struct.pack("<HHIIIIII", 0x0001, 28, start + len(data), len(strings), 0,
                        0x100 if utf8 else 0, start, 0)
            + b"".join(struct.pack("<I", o) for o in offs) + bytes(data))


def manifest(rng: random.Random, pkg: str, classes: list[str]) -> bytes:
    """A compiled AndroidManifest.xml: manifest, uses-sdk, application and its activities."""
    strings = [*ATTRS, "android", ANDROID_NS, "manifest", "package", pkg, "uses-sdk",
               "application", "activity", "intent-filter", "action", "category",
               "android.intent.action.MAIN", "android.intent.category.LAUNCHER",
               str(rng.randrange(1, 5)) + "." + str(rng.randrange(0, 20)), *classes]
    idx = {s: i for i, s in enumerate(strings)}
    res_map = struct.pack("<HHI", 0x0180, 8, 8 + 4 * len(ATTRS)) + b"".join(
        struct.pack("<I", v) for v in ATTRS.values())
    body = bytearray()

    def node(kind: int, extra: bytes) -> None:
        body.extend(struct.pack("<HHIII", kind, 16, 16 + len(extra), rng.randrange(1, 60), 0xFFFFFFFF)
                    + extra)

    def attr(name: str, value: str | int | bool) -> bytes:
        ns = idx[ANDROID_NS] if name in ATTRS else 0xFFFFFFFF
        if isinstance(value, bool):  # a typed boolean (0x12): true is all ones
            return struct.pack("<IIIHBBI", ns, idx[name], 0xFFFFFFFF, 8, 0, 0x12,
                               0xFFFFFFFF if value else 0)
        if isinstance(value, int):  # a typed integer (0x10) or a resource reference (0x01)
            kind = 0x01 if value >= 0x7F000000 else 0x10
            return struct.pack("<IIIHBBI", ns, idx[name], 0xFFFFFFFF, 8, 0, kind, value)
        return struct.pack("<IIIHBBI", ns, idx[name], idx[value], 8, 0, 0x03, idx[value])

    def start(name: str, attrs: list[bytes]) -> None:
        node(0x0102, struct.pack("<IIHHHHHH", 0xFFFFFFFF, idx[name], 20, 20, len(attrs), 0, 0, 0)
             + b"".join(attrs))

    def end(name: str) -> None:
        node(0x0103, struct.pack("<II", 0xFFFFFFFF, idx[name]))

    node(0x0100, struct.pack("<II", idx["android"], idx[ANDROID_NS]))
    start("manifest", [attr("versionCode", rng.randrange(1, 500)), attr("versionName", strings[19]),
                       attr("package", pkg)])
    start("uses-sdk", [attr("minSdkVersion", rng.randrange(14, 28)),
                       attr("targetSdkVersion", rng.randrange(28, 35))])
    end("uses-sdk")
    start("application", [attr("label", 0x7F0F0000 + rng.randrange(64)),
                          attr("icon", 0x7F0D0000 + rng.randrange(16))])
    for k, c in enumerate(classes):
        start("activity", [attr("name", c), attr("exported", k == 0)])
        if k == 0:
            start("intent-filter", [])
            start("action", [attr("name", "android.intent.action.MAIN")])
            end("action")
            start("category", [attr("name", "android.intent.category.LAUNCHER")])
            end("category")
            end("intent-filter")
        end("activity")
    end("application")
    end("manifest")
    node(0x0101, struct.pack("<II", idx["android"], idx[ANDROID_NS]))
    pool = _string_pool(strings, utf8=rng.random() < .3)
    inner = pool + res_map + bytes(body)
    return struct.pack("<HHI", 0x0003, 8, 8 + len(inner)) + inner


def dex(rng: random.Random, pkg: str, classes: list[str], words: list[str]) -> bytes:
    """A DEX file: the header (magic, Adler-32 checksum, SHA-1 signature, sizes, endian tag)
    followed by MUTF-8 string data of class, method and field names and code words."""
    jpkg = "L" + pkg.replace(".", "/") + "/"
    names = sorted({*(jpkg + c.rsplit(".", 1)[-1] + ";" for c in classes),
                    "Landroid/app/Activity;", "Landroid/os/Bundle;", "Ljava/lang/Object;",
                    "Ljava/lang/String;", "V", "VL", "Z", "onCreate", "<init>", "setContentView",
                    *(w.lower() for w in words[:20]), *(jpkg + w.capitalize() + ";" for w in words[20:30])})
    strings = b"".join(bytes([min(len(n), 127)]) + n.encode() + b"\0" for n in names)
    code = b"".join(struct.pack("<H", rng.choice([0x0E, 0x1070, 0x5B, 0x6E, 0x1A, 0x12, 0x22, 0x0C,
                                                   0x54, 0x71, rng.getrandbits(16)]))
                    for _ in range(rng.randrange(200, 4000)))
    body = struct.pack(f"<{len(names)}I", *range(len(names))) + code + strings
    size = 0x70 + len(body)
    ver = rng.choice([b"035", b"037", b"038", b"039"])
    ids = 0x70 + 4 * len(names)  # the string ids, then the rest as one data section
    rest = struct.pack("<III", size, 0x70, 0x12345678) + struct.pack(
        "<17I", 0, 0, size - 12, len(names), 0x70, len(classes) + 4, ids, rng.randrange(4, 40), ids,
        rng.randrange(0, 60), ids, rng.randrange(10, 200), ids, len(classes), ids,
        size - ids, ids)
    sig = hashlib.sha1(rest + body).digest()
    checksum = zlib.adler32(sig + rest + body)
    return b"dex\n" + ver + b"\0" + struct.pack("<I", checksum) + sig + rest + body


def resources(rng: random.Random, pkg: str, words: list[str]) -> bytes:
    """A resources.arsc table: the table header, its value string pool and one package chunk."""
    values = ["res/mipmap-hdpi/ic_launcher.png", "res/layout/activity_main.xml",
              *(w.capitalize() for w in words[:12]), "#ff6200ee", "16dp"]
    pool = _string_pool(values, utf8=True)
    name = pkg.encode("utf-16-le").ljust(256, b"\0")
    types = _string_pool(["attr", "drawable", "mipmap", "layout", "string", "color", "dimen"], utf8=False)
    keys = _string_pool(["ic_launcher", "activity_main", "app_name", *(w.lower() for w in words[:12])],
                        utf8=False)
    pkg_head = struct.pack("<I", 0x7F) + name + struct.pack("<IIIII", 288, 7, 288 + len(types), 0, 0)
    pkg_chunk = pkg_head + types + keys + bytes(rng.getrandbits(8) for _ in range(rng.randrange(64, 2000)))
    pkg_chunk = struct.pack("<HHI", 0x0200, 288, 8 + len(pkg_chunk)) + pkg_chunk
    inner = pool + pkg_chunk
    return struct.pack("<HHII", 0x0002, 12, 12 + len(inner), 1) + inner


def _signing_block(rng: random.Random) -> bytes:
    """An APK Signing Block with a v2 and sometimes a v3 signature scheme pair (random bytes)."""
    pairs = b""
    for pid in [0x7109871A] + ([0xF05368C0] if rng.random() < .5 else []):
        value = bytes(rng.getrandbits(8) for _ in range(rng.randrange(800, 1600)))
        pairs += struct.pack("<QI", 4 + len(value), pid) + value
    size = len(pairs) + 8 + 16
    return struct.pack("<Q", size) + pairs + struct.pack("<Q", size) + b"APK Sig Block 42"


def package(rng: random.Random, words: list[str], files: list[tuple[str, bytes]]) -> bytes:
    """One APK of an app named from ``words``, with ``files`` (name, bytes) among its assets."""
    words = [w for w in words if w.isascii() and w.isalpha()] or ["app", "main", "view"]
    pkg = ".".join([rng.choice(["com", "org", "io", "net", "de"]), *(w.lower() for w in rng.sample(
        words, min(2, len(words))))])
    classes = [f"{pkg}.{w.capitalize()}Activity" for w in rng.sample(words, min(len(words), rng.randrange(1, 5)))]
    v1, v2 = rng.choice([(True, False), (True, True), (False, True), (False, True)])
    buf = io.BytesIO()
    cert = b"\x30\x82" + bytes(rng.getrandbits(8) for _ in range(rng.randrange(700, 1400)))
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        entries: list[tuple[str, bytes, int]] = []
        if v1 and rng.random() < .3:  # jarsigner order: the signature files first
            entries += [("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\nCreated-By: 1.0 (Android)\r\n\r\n",
                         zipfile.ZIP_DEFLATED)]
        core = [("AndroidManifest.xml", manifest(rng, pkg, classes), zipfile.ZIP_DEFLATED),
                ("classes.dex", dex(rng, pkg, classes, words), zipfile.ZIP_DEFLATED),
                ("resources.arsc", resources(rng, pkg, words), zipfile.ZIP_STORED)]
        # the order the tools write: aapt/apkbuilder put the stored resources.arsc first, aapt2
        # and Gradle the manifest, some packers classes.dex
        entries += rng.choice([core, [core[2], *core[:2]], [core[2], *core[:2]], [core[1], core[0], core[2]]])
        if rng.random() < .4:
            entries.append(("classes2.dex", dex(rng, pkg, classes, words[::-1]), zipfile.ZIP_DEFLATED))
        for d in rng.sample(["hdpi", "mdpi", "xhdpi", "xxhdpi"], rng.randrange(1, 4)):
            png = (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(rng.getrandbits(8) for _ in range(rng.randrange(60, 600))))
            entries.append((f"res/mipmap-{d}/ic_launcher.png", png, zipfile.ZIP_STORED))
        entries.append(("res/layout/activity_main.xml", manifest(rng, pkg, classes[:1]), zipfile.ZIP_DEFLATED))
        for name, data in files:
            entries.append((f"assets/{name}", data, zipfile.ZIP_DEFLATED))
        if v1:
            digests = "".join(f"Name: {n}\r\nSHA-256-Digest: {hashlib.sha256(d).hexdigest()[:44]}=\r\n\r\n"
                              for n, d, _ in entries if not n.startswith("META-INF"))
            if not any(n == "META-INF/MANIFEST.MF" for n, _, _ in entries):
                entries.append(("META-INF/MANIFEST.MF",
                                f"Manifest-Version: 1.0\r\nCreated-By: 1.0 (Android)\r\n\r\n{digests}".encode(),
                                zipfile.ZIP_DEFLATED))
            alias = rng.choice(["CERT", "ANDROIDD", "KEY0", words[0].upper()[:8]])
            entries += [(f"META-INF/{alias}.SF", f"Signature-Version: 1.0\r\nCreated-By: 1.0 (Android)\r\n"
                         f"X-Android-APK-Signed: 2\r\n\r\n{digests}".encode(), zipfile.ZIP_DEFLATED),
                        (f"META-INF/{alias}.RSA", cert, zipfile.ZIP_DEFLATED)]
        align = rng.random() < .7  # zipalign: stored data on 4-byte boundaries (extra 0xD935)
        for k, (name, data, method) in enumerate(entries):
            info = zipfile.ZipInfo(name, date_time=rng.choice([(1981, 1, 1, 1, 1, 2), (2008, 1, 1, 0, 0, 0)]))
            info.compress_type = method
            extra = b"\xfe\xca\0\0" if k == 0 and rng.random() < .5 else b""  # the JAR marker
            if align and method == zipfile.ZIP_STORED:
                start = buf.tell() + 30 + len(name.encode()) + len(extra) + 6
                extra += struct.pack("<HHH", 0xD935, 2 + (-start % 4), 4) + b"\0" * (-start % 4)
            info.extra = extra
            z.writestr(info, data)
    data = buf.getvalue()
    if not v2:
        return data
    eocd = data.rfind(b"PK\x05\x06")
    cd_off = struct.unpack("<I", data[eocd + 16:eocd + 20])[0]
    block = _signing_block(rng)
    eocd_new = data[eocd:eocd + 16] + struct.pack("<I", cd_off + len(block)) + data[eocd + 20:]
    return data[:cd_off] + block + data[cd_off:eocd] + eocd_new
