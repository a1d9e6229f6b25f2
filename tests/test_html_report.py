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
