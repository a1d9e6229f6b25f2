"""`fishing2sim report DIR` treats the folder's files as untrusted: it embeds only
PNG files of the folder itself, reads only regular files with a size cap, never writes
through a link, writes report.html whole or not at all under the run's folder lock, names
the file behind every problem in one line, and renders long labels in linear time.

Most folders are made by hand; the commands run as `python -m fishing2sim.cli report DIR`
in a child process with an address-space limit (a read of /dev/zero would otherwise take
the machine's memory) and a timeout (a FIFO would otherwise hang the test)."""
from __future__ import annotations

import base64
import os
import re
import resource
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path
from types import SimpleNamespace

from fishing2sim.safe_files import write_marker


MARKER = "SECRET-7f3a9c41-do-not-leak"
TIMEOUT = 60  # seconds for one `report DIR`; it takes about 2
ROOT = Path(__file__).resolve().parent.parent


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + \
        struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png(text: str = "") -> bytes:
    """A valid 1x1 PNG; ``text`` goes into a tEXt chunk (so a secret is a real PNG that only
    the rules on where a file lies keep out of the page)."""
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\xff\x00\x00")
    extra = _chunk(b"tEXt", b"Comment\x00" + text.encode()) if text else b""
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + extra + _chunk(b"IDAT", idat)
            + _chunk(b"IEND", b""))


SUMMARY = """# rep

Some *text* with **bold** and `code`.

![the plot](plot.png)

| a | b |
|---|---|
| 1 | 2 |

- one
- two
"""


def _folder(root: Path, summary: str = SUMMARY, name: str = "rep", plot: bool = True,
            csv: bool = True) -> Path:
    d = root / "reports" / name
    d.mkdir(parents=True)
    (d / "summary.md").write_text(summary, encoding="utf-8")
    if plot:
        (d / "plot.png").write_bytes(_png())
    if csv:
        (d / "table.csv").write_text("a,b\n1,2\n3,4\n")
    (d / "config.yaml").write_text("name: rep\nseed: 1\n")
    write_marker(d, "run", name, "0")  # a folder of ours: `report DIR` writes its page
    return d


def _limits(fsize: int | None = None):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return apply


def _report(folder: Path, fsize: int | None = None, timeout: float = TIMEOUT):
    return subprocess.run([sys.executable, "-m", "fishing2sim.cli", "report", str(folder)],
                          capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limits(fsize))


def _ok(res, folder: Path) -> str:
    """The run succeeded: exit 0, the page's path printed, no traceback; the page's text."""
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr, res.stderr
    page = folder / "report.html"
    assert res.stdout.strip() == str(page)
    assert not page.is_symlink() and page.is_file()
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    return text


def _refused(res, *words: str, warnings: int = 0) -> str:
    """One line on stderr (after ``warnings`` warning lines), exit 2, no traceback; it holds
    ``words``."""
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr, res.stderr
    lines = res.stderr.strip().splitlines()
    assert all(ln.startswith("warning: ") for ln in lines[:warnings]), res.stderr
    lines = lines[warnings:]
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def _warnings(res) -> list[str]:
    lines = res.stderr.strip().splitlines()
    assert all(ln.startswith("warning: ") for ln in lines), res.stderr
    return lines


def _no_leftovers(folder: Path, page: bool) -> None:
    """No temporary file is left beside the page, and report.html is there iff ``page``."""
    names = {p.name for p in folder.iterdir()}
    assert not [n for n in names if n.startswith(".report.html")], names
    assert ("report.html" in names) == page, names
    assert not (folder.parent / f".{folder.name}.lock").exists()


def _embedded(text: str) -> list[bytes]:
    """Every base64 data: URI of the page, decoded."""
    return [base64.b64decode(m) for m in re.findall(r"data:[\w/+.-]+;base64,([A-Za-z0-9+/=]*)",
                                                    text)]


# --------------------------------------------------------------------------------------------
# 6: report.html whole or not at all; an incomplete page is written anew
# --------------------------------------------------------------------------------------------
def test_a_truncated_page_is_written_anew_and_a_complete_one_served(tmp_path):
    d = _folder(tmp_path)
    whole = _ok(_report(d), d)
    assert whole.count('<img class="plot"') == 1 and "<strong>bold</strong>" in whole
    page = d / "report.html"
    # a complete page is served as it is (its bytes untouched)
    page.write_text(whole.replace("Some <em>text</em>", "Served <em>as is</em>"))
    before = page.read_bytes()
    assert _ok(_report(d), d) and page.read_bytes() == before
    # a truncated one (a full disk, a killed writer) is written anew from the folder
    page.write_bytes(before[:len(before) // 2])
    res = _report(d)
    assert _ok(res, d) == whole
    assert any("report.html" in w and "not a complete page" in w for w in _warnings(res))
    _no_leftovers(d, page=True)


def test_a_failed_write_leaves_no_page(tmp_path):
    # a nearly full disk: a file size limit of 300 kB (RLIMIT_FSIZE) against a page of 700 kB
    d = _folder(tmp_path, plot=False)
    (d / "plot.png").write_bytes(_png() + os.urandom(500_000))
    res = _report(d, fsize=300_000)
    _refused(res, str(d / "report.html"))
    _no_leftovers(d, page=False)
    # the next call writes the whole page (it does not serve a broken one)
    text = _ok(_report(d), d)
    assert len(text) > 600_000 and text.count('<img class="plot"') == 1
    # the same with a broken page already there: it is not left under the real name
    (d / "report.html").write_text(text[:1000])
    _refused(_report(d, fsize=300_000), str(d / "report.html"), warnings=1)
    _no_leftovers(d, page=False)


# --------------------------------------------------------------------------------------------
# 8, 9, 11: nothing from outside the folder, no link followed, no special file read
# --------------------------------------------------------------------------------------------
def test_nothing_from_outside_the_folder_is_embedded(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "SECRET.txt").write_text(f"{MARKER} password\n")
    (secret / "secret.png").write_bytes(_png(MARKER))  # a real PNG: only its place keeps it out
    (secret / "secret.csv").write_text(f"a,b\n{MARKER},1\n")
    (secret / "config.yaml").write_text(f"seed: {MARKER}\n")
    (secret / "report.html").write_text(f"<!DOCTYPE html><html>{MARKER}</html>\n")
    refs = ["../../secret/SECRET.txt", "../../secret/secret.png", str(secret / "secret.png"),
            str(secret / "SECRET.txt"), "./../../secret/secret.png", "sub/secret.png",
            "link.png", "dotdot.png", "..", "/etc/passwd",
            f"file://{secret / 'secret.png'}"]
    summary = "# leak\n\n" + "\n\n".join(f"![ALT{i}]({r})" for i, r in enumerate(refs)) + \
        "\n\n![fine](plot.png)\n\n![hard](hard.png)\n"
    d = _folder(tmp_path, summary, csv=False)
    os.symlink(secret / "secret.png", d / "link.png")
    os.symlink("../../secret/secret.png", d / "dotdot.png")
    os.symlink(secret, d / "sub")
    os.symlink(secret / "secret.csv", d / "leak.csv")
    (d / "config.yaml").unlink()
    os.symlink(secret / "config.yaml", d / "config.yaml")
    os.symlink(secret / "report.html", d / "report.html")  # a link is never served either
    os.link(d / "plot.png", tmp_path / "hard-source.png")  # a hard link is a regular file
    os.link(tmp_path / "hard-source.png", d / "hard.png")
    res = _report(d)
    text = _ok(res, d)
    assert MARKER not in text
    blobs = _embedded(text)
    assert len(blobs) == 2 and all(b == _png() for b in blobs)  # plot.png and hard.png
    assert all(MARKER.encode() not in b for b in blobs)
    # every refused image shows its alt text and is named on stderr
    for i, r in enumerate(refs):
        assert f"ALT{i}" in text
    warnings = "\n".join(_warnings(res))
    for name in ("link.png", "dotdot.png", "leak.csv", "config.yaml", "report.html",
                 "sub/secret.png", "/etc/passwd", "../../secret/SECRET.txt"):
        assert name in warnings, name
    assert (secret / "report.html").read_text() == f"<!DOCTYPE html><html>{MARKER}</html>\n"


def test_a_linked_summary_is_refused(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(f"# {MARKER}\n")
    d = _folder(tmp_path)
    (d / "summary.md").unlink()
    os.symlink(outside, d / "summary.md")
    _refused(_report(d), str(d / "summary.md"), "symbolic link")
    _no_leftovers(d, page=False)


def test_only_png_files_under_the_size_cap_are_embedded(tmp_path):
    d = _folder(tmp_path, SUMMARY + "\n![gif](fake.png)\n\n![huge](huge.png)\n"
                "\n![twice](plot.png)\n" + "\n![again](many.png)\n" * 5)
    (d / "fake.png").write_bytes(b"GIF89a" + b"\0" * 100)
    for name, mib in (("huge.png", 17), ("many.png", 14)):  # sparse files
        with open(d / name, "wb") as f:
            f.write(_png())
            f.truncate(mib * 1024 * 1024)
    res = _report(d)
    text = _ok(res, d)
    assert len(_embedded(text)) == 2  # plot.png, twice
    w = _warnings(res)
    assert len(w) == 3, w
    assert f"{d / 'fake.png'}: not a PNG image" in w[0]
    assert f"{d / 'huge.png'}: the image has 17,825,792 bytes, more than" in w[1]
    # 5 x 14 MiB would pass the 64 MiB embedded in one page: none of the five is
    assert f"{d / 'many.png'}: the images would pass the 67,108,864 bytes" in w[2]
    assert "gif" in text and "huge" in text and text.count("again") == 5
    assert len(text) < 100_000


def test_a_linked_page_is_never_followed_nor_served(tmp_path):
    # a dangling link as report.html: writing through it would plant a key outside
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True)
    d = _folder(tmp_path)
    os.symlink(ssh / "authorized_keys", d / "report.html")
    res = _report(d)
    _ok(res, d)
    assert not (ssh / "authorized_keys").exists() and list(ssh.iterdir()) == []
    assert any("symbolic link" in w for w in _warnings(res))
    # a link to a complete page elsewhere: not served, the page there untouched
    (d / "report.html").unlink()
    elsewhere = tmp_path / "elsewhere.html"
    elsewhere.write_text(f"<!DOCTYPE html>\n<html>{MARKER}</html>\n")
    os.symlink(elsewhere, d / "report.html")
    assert MARKER not in _ok(_report(d), d)
    assert elsewhere.read_text() == f"<!DOCTYPE html>\n<html>{MARKER}</html>\n"
    _no_leftovers(d, page=True)


def test_special_files_neither_hang_nor_exhaust_memory(tmp_path):
    d = _folder(tmp_path, SUMMARY + "\n![zero](/dev/zero)\n\n![z](zero.png)\n\n![f](fifo.png)\n")
    os.symlink("/dev/zero", d / "zero.png")
    os.mkfifo(d / "x.csv")
    os.mkfifo(d / "fifo.png")
    os.mkdir(d / "folder.csv")
    (d / "config.yaml").unlink()
    os.mkfifo(d / "config.yaml")
    res = _report(d)
    text = _ok(res, d)
    w = "\n".join(_warnings(res))
    assert "x.csv: the CSV table is a FIFO" in w and "fifo.png: the image is a FIFO" in w
    assert "folder.csv: the CSV table is a folder" in w
    assert "zero.png: the image is a symbolic link" in w and "/dev/zero" in w
    assert "config.yaml: the configuration is a FIFO" in w
    assert len(_embedded(text)) == 1 and 'data-table="table"' in text
    # a FIFO as summary.md: one line, nothing written
    os.unlink(d / "report.html")
    (d / "summary.md").unlink()
    os.mkfifo(d / "summary.md")
    _refused(_report(d), str(d / "summary.md"), "FIFO")
    _no_leftovers(d, page=False)


# --------------------------------------------------------------------------------------------
# 15: bad input is one line naming the file; a bad CSV is left out with a warning
# --------------------------------------------------------------------------------------------
def test_bad_csv_tables_are_left_out_with_a_warning(tmp_path):
    d = _folder(tmp_path)
    (d / "binary.csv").write_bytes(b"a,b\n1,2\n\xff\xfe\x00\x81garbage\n")
    (d / "ragged.csv").write_text("a,b\n1,2\n3,4,5\n")
    (d / "wide_first.csv").write_text("a,b\n1,2,3\n")
    (d / "empty.csv").write_bytes(b"")
    (d / "quote.csv").write_text('a,b\n"open,1\n')
    (d / "wide.csv").write_text(",".join(f"c{i}" for i in range(2000)) + "\n")
    res = _report(d)
    text = _ok(res, d)
    w = _warnings(res)
    assert len(w) == 6, w
    joined = "\n".join(w)
    assert f"{d / 'binary.csv'}: the CSV table is not UTF-8 text (line 3" in joined
    assert f"{d / 'ragged.csv'}: not a CSV table (Expected 2 fields in line 3, saw 3)" in joined
    assert f"{d / 'wide_first.csv'}:" in joined and f"{d / 'empty.csv'}:" in joined
    assert f"{d / 'quote.csv'}:" in joined and f"{d / 'wide.csv'}:" in joined
    assert all(ln.endswith("the table is left out") for ln in w)
    shown = re.findall(r'data-table="([^"]+)"', text)
    assert shown == ["table"]


def test_a_summary_that_is_not_utf8_is_one_line(tmp_path):
    d = _folder(tmp_path)
    (d / "summary.md").write_bytes(b"# rep\n\nfine\n\nnot \xe9 utf-8\n")
    _refused(_report(d), str(d / "summary.md"), "not UTF-8 text (line 5")
    _no_leftovers(d, page=False)


def test_image_syntax_without_a_target_is_text(tmp_path):
    d = _folder(tmp_path, "# rep\n\n![no target here\n\n![x]plot.png\n\n![](\n\n"
                "![a](plot.png) and more\n\n![b](plot.png)\n")
    res = _report(d)
    text = _ok(res, d)
    assert res.stderr == ""
    for para in ("![no target here", "![x]plot.png", "![](", "![a](plot.png) and more"):
        assert f"<p>{para}</p>" in text
    assert len(_embedded(text)) == 1


# --------------------------------------------------------------------------------------------
# 16: a label of 200,000 characters renders in seconds
# --------------------------------------------------------------------------------------------
LONG = 200_000


def test_a_long_label_in_a_report_folder_renders_quickly(tmp_path):
    long = ("x" * 99 + " *a* ") * (LONG // 104)
    star = "*a " * (LONG // 3)
    d = _folder(tmp_path, f"# {long}\n\n{long}\n\n{star}\n\n- {long}\n\n![{long}](plot.png)\n\n"
                f"| a | b |\n|---|---|\n| {long} | {star} |\n")
    (d / "long.csv").write_text(f"name,v\n{long},1\n{star},2\n")
    (d / "config.yaml").write_text(f"name: {long}\n")
    t = time.perf_counter()
    text = _ok(_report(d), d)
    elapsed = time.perf_counter() - t
    assert elapsed < 10, elapsed
    shown = long[:1000].replace("*a*", "<em>a</em>")  # heading, paragraph, item, 2 cells
    assert 'data-table="long"' in text and text.count(shown) >= 5


_LONG_RUN = """
import sys, time
sys.path.insert(0, {tests!r})
from pathlib import Path
from test_report import _exp, _tables
from fishing2sim import report
exp = _exp(Path({root!r}))
exp.conditions[1].name = "x" * {n}
t = time.perf_counter()
out = report.write_report(exp, _tables(exp))
print(time.perf_counter() - t)
"""


def test_a_long_condition_name_in_a_run_report_writes_quickly(tmp_path):
    # the report writer of `run`, real plots: matplotlib lays out and draws every glyph of a
    # label, so a 200,000-character condition name took minutes; plots now show 8 lines
    script = _LONG_RUN.format(tests=str(ROOT / "tests"), root=str(tmp_path), n=LONG)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, preexec_fn=_limits())
    assert res.returncode == 0, res.stderr[-2000:]
    assert float(res.stdout.strip().splitlines()[-1]) < 10
    out = tmp_path / "reports" / "trump"
    assert ("x" * LONG) in (out / "summary.md").read_text()  # the text keeps the whole name
    assert (out / "overfishing.png").stat().st_size < 1_000_000


# --------------------------------------------------------------------------------------------
# 22: a missing plot is named
# --------------------------------------------------------------------------------------------
def test_a_missing_plot_is_named(tmp_path):
    d = _folder(tmp_path, SUMMARY + "\n![gone away](gone.png)\n")
    res = _report(d)
    text = _ok(res, d)
    assert _warnings(res) == [f"warning: {d / 'gone.png'}: no such image; its alt text is "
                              "shown instead"]
    assert "gone away" in text and len(_embedded(text)) == 1


# --------------------------------------------------------------------------------------------
# the lock of `run`, and the README
# --------------------------------------------------------------------------------------------
def test_report_dir_takes_the_run_lock(tmp_path):
    from fishing2sim.run.checkpoints import OutputLock, lock_path

    d = _folder(tmp_path)
    exp = SimpleNamespace(output_dir=d, name=d.name)  # what `run` locks for this folder
    assert lock_path(exp) == d.parent / ".rep.lock"
    lock = OutputLock(d.parent, d.name).acquire()
    try:
        _refused(_report(d), str(d), "in use by another run", f"PID {os.getpid()}")
        assert not (d / "report.html").exists()
    finally:
        lock.release()
    _ok(_report(d), d)
    _no_leftovers(d, page=True)
    lock = OutputLock(d.parent, d.name).acquire()
    try:  # a complete page is served without the lock: no write
        _ok(_report(d), d)
    finally:
        lock.release()
    # a link planted as the lock file is not written through
    (d / "report.html").unlink()
    target = tmp_path / "planted"
    os.symlink(target, d.parent / ".rep.lock")
    _refused(_report(d), str(d.parent / ".rep.lock"), "symbolic link")
    assert not target.exists() and not (d / "report.html").exists()


def test_the_docs_say_what_report_dir_embeds():
    doc = (ROOT / "docs" / "reports.md").read_text()
    section = doc[doc.index("## The page of a folder: `fishing2sim report DIR`"):]
    assert "fishing2sim report DIR" in section
    for words in ("PNG", "symbolic link", "report.html", "warning"):
        assert words in section, words


def test_rendering_a_folder_loads_no_plotting(tmp_path):
    # `fishing2sim report DIR` renders a page from files already written: it must not pay
    # for matplotlib and the report sections (most of a second at every call)
    d = _folder(tmp_path)
    script = ("import sys\nfrom fishing2sim.cli import main\n"
              "try:\n    main(['report', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
              "print(sorted(m for m in sys.modules if m.startswith(('matplotlib', "
              "'fishing2sim.report.write', 'fishing2sim.report.trump'))))")
    res = subprocess.run([sys.executable, "-c", script, str(d)], capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == "[]"
    assert (d / "report.html").is_file()
    # a run's report still comes through the same package name
    from fishing2sim import report
    assert report.write_report.__module__ == "fishing2sim.report.write"
