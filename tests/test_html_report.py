"""report.html in a real headless browser (Debian's chromium driven by Playwright): the page
loads with no console errors, every plot and table of the summary is there, the tables sort,
and a screenshot is taken. Also `fishing2sim report DIR` and `run --open`."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from fishing2sim import cli
from fishing2sim.cli import main

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def _browser_or_skip():
    """Playwright and chromium, or a skip; under CI=true their absence is a failure."""
    ci = os.environ.get("CI", "").lower() == "true"
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        if ci:
            pytest.fail("playwright is not installed (pip install -e '.[test]')")
        pytest.skip("playwright is not installed")
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        if ci:
            pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    return sync_playwright


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """A small real run with a baseline (contrasts), a mixed lineup (trump per strategy) and
    every analysis."""
    root = tmp_path_factory.mktemp("html")
    path = root / "web.yaml"
    path.write_text(f"""name: web
output: {root / 'reports'}
players: [3, 4]
games: 300
chunk: 300
seed: 21
seats: greedy
sweep:
  deck.remove:
    - {{value: [], label: standard deck, baseline: true}}
    - {{value: [blue 26], label: without blue 26}}
analyses: [depletion, overfishing, trump_value, strategies]
trump_value: {{max_round: 3}}
""")
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    return root / "reports" / "web"


def test_report_html_in_a_browser(report_dir, tmp_path):
    sync_playwright = _browser_or_skip()
    page_file = report_dir / "report.html"
    html = page_file.read_text()
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html
    md = (report_dir / "summary.md").read_text()
    plots = sorted(p.name for p in report_dir.glob("*.png"))
    n_tables = md.count("\n|---")
    assert plots and n_tables >= 5
    errors, failed = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.goto(page_file.resolve().as_uri(), wait_until="load")
            assert page.title() == "web"
            # every plot of the folder is embedded, decoded and drawn
            imgs = page.eval_on_selector_all(
                "img.plot", "els => els.map(e => [e.dataset.file, e.complete, e.naturalWidth])")
            assert sorted(f for f, _, _ in imgs) == plots
            assert all(ok and w > 100 for _, ok, w in imgs), imgs
            # every table of the summary, then one per CSV file
            summary_tables = page.locator("table.sortable:not(details table)").count()
            assert summary_tables == n_tables
            csvs = sorted(p.stem for p in report_dir.glob("*.csv"))
            shown = page.eval_on_selector_all("details.csv", "els => els.map(e => e.dataset.table)")
            assert sorted(shown) == csvs
            assert page.locator("h2#in-short").count() == 1
            assert "raises" in page.inner_text("body") or "lowers" in page.inner_text("body") \
                or "no measurable effect" in page.inner_text("body")
            # the tables sort: the overfishing table by its share column, both ways
            table = page.locator("h2#overfishing ~ table").first
            header = table.locator("th", has_text="overfished share")
            header.click()
            col = [c.strip() for c in table.locator("tbody tr td:nth-child(3)").all_inner_texts()]
            values = [float(c.split("%")[0]) for c in col]
            assert values == sorted(values)
            header.click()
            col = [c.strip() for c in table.locator("tbody tr td:nth-child(3)").all_inner_texts()]
            assert [float(c.split("%")[0]) for c in col] == sorted(values, reverse=True)
            # config and stamps
            body = page.inner_text("body")
            assert "config_hash" in body and "fishing2sim 0." in body
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 50_000
        finally:
            browser.close()
    assert errors == [] and failed == []


def test_report_command_and_open(report_dir, tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(cli, "_open_page", lambda page: opened.append(Path(page)))
    res = CliRunner().invoke(main, ["report", str(report_dir), "--open"])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == str(report_dir / "report.html")
    assert opened == [report_dir / "report.html"]
    # an older report folder without report.html: the page is written from summary.md
    old = tmp_path / "old"
    shutil.copytree(report_dir, old)
    (old / "report.html").unlink()
    res = CliRunner().invoke(main, ["report", str(old)])
    assert res.exit_code == 0, res.output
    html = (old / "report.html").read_text()
    assert html.count('<img class="plot"') == len(list(old.glob("*.png")))
    md = (old / "summary.md").read_text()
    assert html.count('<table class="sortable"><thead>') == md.count("\n|---") + len(
        list(old.glob("*.csv")))
    # not a report folder: one line, exit 2, nothing written
    empty = tmp_path / "empty"
    empty.mkdir()
    res = CliRunner().invoke(main, ["report", str(empty)])
    assert res.exit_code == 2 and "not a report folder" in res.output
    assert list(empty.iterdir()) == []
    res = CliRunner().invoke(main, ["report", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "no such report folder" in res.output


# --------------------------------------------------------------------------------------------
# a page that fits a 1300-px window: long condition names, a tune report's YAML
# --------------------------------------------------------------------------------------------
SIX_DECKS = """name: six_decks
output: {out}
players: [3, 4]
games: 200
chunk: 200
seed: 8
seats: greedy
sweep:
  deck:
    - {{value: {{}}, label: standard deck, baseline: true}}
    - {{value: {{remove: [blue 26, yellow 26]}}, label: without blue 26 and yellow 26}}
    - {{value: {{remove: [blue 26, yellow 26, green 16 (2)]}}, label: without blue 26 yellow 26 and green 16}}
    - {{value: {{remove_from_tier: {{4: 3}}}}, label: three tier-4 cards removed from the ocean}}
    - {{value: {{remove_from_tier: {{5: 3}}}}, label: three tier-5 cards removed from the ocean}}
    - value:
        add:
          - {{name: blue 27, kind: colour, colour: blue, value: 27, effect: none, tier: 4, min_players: 3}}
          - {{name: yellow 27, kind: colour, colour: yellow, value: 27, effect: none, tier: 4, min_players: 3}}
      label: with blue 27 and yellow 27 added to tier 4
analyses: [depletion, overfishing, strategies]
"""

TUNE = """name: tuned
output: {out}
players: [4, 5]
seed: 3
seats: random
analyses: [overfishing, strategies]
tune:
  space:
    deck.remove_from_tier.4: {{int: [0, 3]}}
    deck.hand_sizes.5: {{choices: [[8, 8, 9, 9, 10, 10, 11, 11], [8, 8, 8, 8, 9, 9, 9, 9]]}}
  objective:
    targets: ["overfishing[players=4] <= 0.12", "leader_edge <= 2"]
  budget: {{trials: 4, games: 200}}
  racing: {{top: 1, games: 300}}
"""

FITS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const w = window.innerWidth;
  const tables = Array.from(document.querySelectorAll('table')).map(t => ({
    right: t.getBoundingClientRect().right, scroll: t.scrollWidth, client: t.clientWidth,
    csv: !!t.closest('details.csv'), head: t.tHead.rows[0].cells[0].textContent}));
  return {width: w, page: document.documentElement.scrollWidth, tables: tables};
}"""


@pytest.fixture(scope="module")
def wide_folders(tmp_path_factory):
    """A run with 6 decks x 2 player counts (long condition names, 10 contrasts) and a tune
    report, each a folder with its report.html."""
    root = tmp_path_factory.mktemp("wide")
    run_file = root / "six.yaml"
    run_file.write_text(SIX_DECKS.format(out=root / "reports"))
    res = CliRunner().invoke(main, ["run", str(run_file), "--workers", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    tune_file = root / "tuned.yaml"
    tune_file.write_text(TUNE.format(out=root / "reports"))
    res = CliRunner().invoke(main, ["tune", str(tune_file), "-w", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    return root / "reports" / "six_decks", root / "reports" / "tuned"


def _check_fits(page, shot):
    fit = page.evaluate(FITS)
    w = fit["width"]
    assert w == 1300 and fit["page"] <= w, fit
    for t in fit["tables"]:
        assert t["right"] <= w, t
        if not t["csv"]:  # the summary's tables show every column: no scrolling inside
            assert t["scroll"] <= t["client"], t
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000
    return fit


@pytest.mark.slow  # the 1300-px check of two real pages (a run and a tune) in chromium: 20 s (the default run stays within 6 minutes)
def test_the_page_fits_a_1300_px_window(wide_folders, tmp_path):
    import yaml

    sync_playwright = _browser_or_skip()
    run_dir, tune_dir = wide_folders
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            # the run report: long names wrap; the contrasts table opens with the figures
            page.goto((run_dir / "report.html").resolve().as_uri(), wait_until="load")
            fit = _check_fits(page, tmp_path / "run.png")
            assert any(t["head"] == "difference [95% CI]" for t in fit["tables"])
            table = page.locator("h2#contrasts-against-the-baseline ~ table").first
            cells = table.locator("tbody tr").first.locator("td")
            assert cells.count() == 9
            right = table.evaluate("t => t.getBoundingClientRect().right")
            for k in range(9):  # every cell of a row is on the page, none behind a scrollbar
                assert cells.nth(k).evaluate("c => c.getBoundingClientRect().right") <= right
            assert page.locator("img.plot[data-file='scores.png']").count() == 1
            # the tune report, as tune wrote it and as `report DIR` writes it from summary.md
            best = yaml.safe_load((tune_dir / "best.yaml").read_text())
            md = (tune_dir / "summary.md").read_text()
            fenced = md.split("```yaml\n", 1)[1].split("\n```", 1)[0]
            for pass_ in ("tune", "report DIR"):
                if pass_ == "report DIR":
                    (tune_dir / "report.html").unlink()
                    res = CliRunner().invoke(main, ["report", str(tune_dir)])
                    assert res.exit_code == 0, res.output
                page.goto((tune_dir / "report.html").resolve().as_uri(), wait_until="load")
                _check_fits(page, tmp_path / f"tune-{pass_.replace(' ', '-')}.png")
                code = page.locator("pre.code code")
                assert code.count() == 1
                text = code.inner_text()
                assert text.splitlines() == fenced.splitlines(), pass_
                assert len(text.splitlines()) >= 3  # one line per key, not one line
                snippet = yaml.safe_load(text)
                assert snippet and snippet == {k: best[k] for k in snippet}, pass_
                assert "`" not in text
                body = page.inner_text("body")
                assert "best.yaml" in body and "tune.yaml" in body
        finally:
            browser.close()
    assert errors == []


def test_the_page_is_a_jinja2_template_that_escapes_every_text():
    """report.html comes from the template installed with the package, rendered with
    autoescaping: a text of the summary, a file name, a CSV cell, the configuration or a stamp
    that holds markup shows as text, never as a tag; the summary's own inline markdown (bold,
    italics, code) is the only markup made from text."""
    from importlib.resources import files

    import pandas as pd

    from fishing2sim.report import html
    from fishing2sim.report.document import Doc

    assert files("fishing2sim.report").joinpath("templates/report.html.j2").is_file()
    evil = "<script>alert(1)</script>"
    doc = Doc()
    doc.h(1, f"T {evil}")
    doc.p(f"**bold** *it* `code` {evil} & more")
    doc.ul([evil])
    doc.table(["a_b.c", evil], [[evil, "`x`"]])
    doc.terms({evil: evil})
    doc.code(f"k: {evil}", "yaml")
    doc.img(evil, 'a"b.png')  # not embedded: its alt text stands in
    doc.img("plot", "p.png")
    page = html.render(doc, {"p.png": b"\x89PNG"}, evil, {evil: pd.DataFrame({evil: [evil]})},
                       f"x: {evil}", [evil])
    assert page.count("<script>") == 1 and "alert(1)</script>" not in page
    # title, heading, paragraph, list, table header and cell, term and definition, code,
    # missing image, CSV table (name twice, header, cell), configuration, stamp
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 16
    assert "<strong>bold</strong> <em>it</em> <code>code</code>" in page
    assert "<th>a_<wbr>b.<wbr>c</th>" in page
    assert 'data-file="a&#34;b.png"' in page and 'data-file="p.png"' in page
    assert "src=\"data:image/png;base64,iVBORw==\"" in page
    assert page.startswith("<!DOCTYPE html>\n") and page.endswith("</body></html>\n")
