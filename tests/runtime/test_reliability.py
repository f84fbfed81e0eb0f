"""Every odd thing a scanner meets on disk becomes a status, never an exception or a hang."""

import errno
import os
import socket
import stat
import threading

import pytest

import picohead_runtime.windows as windows_mod
from picohead_runtime import Classifier
from picohead_runtime.windows import read_window

HEAD = TAIL = 128  # the toy spec's window


def _classify_with_timeout(clf, path, seconds=10.0):
    """Classify in a thread so a blocking open/read fails the test instead of hanging it."""
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", clf.classify_path(path)), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"classify_path({path!r}) blocked"
    return out["r"]


def test_empty_file(clf, tmp_path):
    p = tmp_path / "empty"
    p.write_bytes(b"")
    r = clf.classify_path(p)
    assert (r.status, r.ok, r.heads) == ("empty", False, {})
    assert r.path == str(p) and r.asdict()["status"] == "empty"


def test_one_byte_file(clf, tmp_path):
    p = tmp_path / "one"
    p.write_bytes(b"x")
    r = clf.classify_path(p)
    assert r.ok and r.status == "ok" and set(r.heads) >= {"kind", "risk"}


def test_missing_file_and_missing_parent(clf, tmp_path):
    assert clf.classify_path(tmp_path / "nope").status == "not_found"
    (tmp_path / "f").write_bytes(b"x")
    assert clf.classify_path(tmp_path / "f" / "child").status == "not_found"  # ENOTDIR


def test_directory(clf, tmp_path):
    r = clf.classify_path(tmp_path)
    assert r.status == "is_directory" and not r.ok


def test_symlinks_are_not_followed_unless_asked(model_dir, clf, tmp_path):
    target = tmp_path / "real.txt"
    target.write_bytes(b"hello world\n")
    link = tmp_path / "link"
    link.symlink_to(target)
    r = clf.classify_path(link)
    assert r.status == "not_regular_file" and "symbolic link" in r.message
    follower = Classifier(model_dir, tier="tiny", follow_symlinks=True)
    assert follower.classify_path(link).heads == clf.classify_path(target).heads


def test_broken_symlink(model_dir, clf, tmp_path):
    link = tmp_path / "dangling"
    link.symlink_to(tmp_path / "does-not-exist")
    assert clf.classify_path(link).status == "not_regular_file"
    follower = Classifier(model_dir, tier="tiny", follow_symlinks=True)
    assert follower.classify_path(link).status == "not_found"


def test_symlink_loop(model_dir, clf, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    assert clf.classify_path(a).status == "not_regular_file"
    follower = Classifier(model_dir, tier="tiny", follow_symlinks=True)
    r = follower.classify_path(a)
    assert r.status == "read_error" and "symbolic links" in r.message


def test_fifo_does_not_block(model_dir, clf, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: a blocking open would hang forever
    r = _classify_with_timeout(clf, fifo)
    assert r.status == "not_regular_file" and "FIFO" in r.message
    follower = Classifier(model_dir, tier="tiny", follow_symlinks=True)
    link = tmp_path / "to-fifo"
    link.symlink_to(fifo)
    assert _classify_with_timeout(follower, link).status == "not_regular_file"


@pytest.mark.parametrize("dev", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused(clf, dev):
    if not os.path.exists(dev):
        pytest.skip(f"{dev} missing")
    r = _classify_with_timeout(clf, dev)
    assert r.status == "not_regular_file" and "device" in r.message


def test_unix_socket(clf, tmp_path):
    path = str(tmp_path / "sock")
    if len(path) > 100:
        pytest.skip("socket path too long for AF_UNIX")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(path)
        assert _classify_with_timeout(clf, path).status == "not_regular_file"
    finally:
        s.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_real(clf, tmp_path):
    p = tmp_path / "secret"
    p.write_bytes(b"top secret")
    p.chmod(0)
    try:
        assert clf.classify_path(p).status == "permission_denied"
    finally:
        p.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_unreadable_file_emulated(clf, tmp_path, monkeypatch):
    """As root permissions are not enforced, so emulate the EACCES that open(2) gives a user."""
    p = tmp_path / "secret"
    p.write_bytes(b"top secret")
    real_open = os.open

    def deny(path, flags, *a, **kw):
        if os.fsdecode(path) == str(p):
            raise PermissionError(errno.EACCES, "Permission denied", str(p))
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(windows_mod.os, "open", deny)
    r = clf.classify_path(p)
    assert r.status == "permission_denied" and r.message == "Permission denied"


def test_io_error_while_reading(clf, tmp_path, monkeypatch):
    p = tmp_path / "bad-disk"
    p.write_bytes(b"x" * 1000)

    def eio(*a, **kw):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(windows_mod.os, "pread", eio)
    r = clf.classify_path(p)
    assert r.status == "read_error" and "Input/output" in r.message


def test_sparse_10gb_file_reads_only_the_windows(clf, tmp_path, monkeypatch):
    p = tmp_path / "huge.img"
    with open(p, "wb") as f:
        f.write(b"#!/usr/bin/env python3\nimport os\n")
        try:
            f.truncate(10 * 2**30)
        except OSError as e:
            pytest.skip(f"no sparse files here: {e}")
        end = b"print('the end')\n"
        f.seek(10 * 2**30 - len(end))
        f.write(end)
    assert p.stat().st_size == 10 * 2**30
    reads = []
    real_pread = os.pread

    def counting_pread(fd, n, offset):
        reads.append((n, offset))
        return real_pread(fd, n, offset)

    monkeypatch.setattr(windows_mod.os, "pread", counting_pread)
    r = clf.classify_path(p)
    assert r.ok
    # the two windows, and the byte before the tail window (the final newline is stripped)
    assert sum(n for n, _ in reads) <= HEAD + TAIL + 1 and len(reads) == 3
    window = read_window(p, HEAD, TAIL)
    assert window.startswith(b"#!/usr/bin/env python3") and window.endswith(b"print('the end')")
    assert clf.classify_bytes(window).heads == r.heads


def test_never_opens_for_writing(clf, tmp_path, monkeypatch):
    p = tmp_path / "f.txt"
    p.write_bytes(b"some text\n" * 100)
    flags_seen = []
    real_open = os.open

    def spy(path, flags, *a, **kw):
        flags_seen.append(flags)
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(windows_mod.os, "open", spy)
    before = p.stat()
    assert clf.classify_path(p).ok
    list(clf.classify_paths([p, p]))
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    assert flags_seen and all(f & write_flags == 0 for f in flags_seen)
    assert all(f & os.O_NONBLOCK for f in flags_seen)
    assert p.stat().st_mtime_ns == before.st_mtime_ns


def test_non_utf8_file_names(clf, tmp_path):
    raw_dir = os.fsencode(tmp_path)
    name = raw_dir + b"/caf\xe9-\xff\xfe.txt"
    with open(name, "wb") as f:
        f.write(b"plain text\n")
    by_bytes = clf.classify_path(name)
    as_str = os.fsdecode(name)  # surrogate escapes
    by_str = clf.classify_path(as_str)
    assert by_bytes.ok and by_str.ok and by_bytes.heads == by_str.heads
    assert by_bytes.path == as_str
    d = by_bytes.asdict()
    import base64

    assert base64.b64decode(d["path_b64"]) == name
    (listed,) = [r for r in clf.classify_paths([name]) if r.ok]
    assert listed.path == as_str


def test_name_with_newline_and_control_characters(clf, tmp_path):
    p = tmp_path / "evil\nname\x1b[31m.txt"
    p.write_bytes(b"hello\n")
    r = clf.classify_path(p)
    assert r.ok and r.path == str(p)


def test_a_scan_never_dies_on_one_file(clf, tmp_path):
    good = tmp_path / "good.txt"
    good.write_bytes(b"fine\n")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    paths = [good, tmp_path / "missing", tmp_path, empty, fifo, "/dev/zero", good]
    statuses = [r.status for r in clf.classify_paths(paths)]
    assert statuses == [
        "ok",
        "not_found",
        "is_directory",
        "empty",
        "not_regular_file",
        "not_regular_file",
        "ok",
    ]
