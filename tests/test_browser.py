"""The HTML report in a real browser: headless Chromium through its DevTools protocol.

Renders a sweep report, loads ``report.html`` at laptop width (1366×768), fails on any console
error or uncaught exception, checks that the page does not scroll sideways, that every chart
loaded and has a title, and that clicking a column heading sorts a table. At 1280 px, a table
wider than the page scrolls inside its box and every column can be brought into view. The
screenshots are kept in ``reports/browser-test/`` (git-ignored) for a human to look at.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it); the test is skipped only
when no Chromium binary can be found. Never downloads a browser.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from analyzer.report.render import to_html
from analyzer.study.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "reports" / "browser-test"
WIDTH, HEIGHT = 1366, 768
NARROW = 1280  # the width at which no column may be out of reach


def _chromium() -> str | None:
    for name in (os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class DevTools:
    """A minimal DevTools-protocol client over one page's websocket (``websocket-client``)."""

    def __init__(self, ws_url: str):
        import websocket  # the test extra's websocket-client

        self.ws = websocket.create_connection(ws_url, timeout=30)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def call(self, method: str, **params):
        """Send one command and return its result; events seen meanwhile are kept."""
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for ev in self.events:
                if ev.get("method") == method:
                    return ev
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(method)

    def js(self, expression: str):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in res:
            raise AssertionError(f"page script failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for ev in self.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                  for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", ""))
        return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    exe = _chromium()
    if exe is None:
        pytest.skip("no Chromium binary found (install Debian's `chromium`; .ci/run does)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", f"--user-data-dir={profile}", "--remote-debugging-port=0",
         "--remote-allow-origins=*",  # newer Chromium refuses the DevTools socket otherwise
         f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = profile / "DevToolsActivePort"
    try:
        for _ in range(300):
            if port_file.exists() and port_file.read_text().strip():
                break
            if proc.poll() is not None:
                pytest.fail(f"chromium exited with code {proc.returncode}")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            pages = [t for t in json.load(r) if t["type"] == "page"]
        yield DevTools(pages[0]["webSocketDebuggerUrl"])
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def report_html(tmp_path_factory):
    """A sweep report of the toy game (tables, charts, the sweep and first-player sections)."""
    from conftest import TOY_SCENARIO

    folder = tmp_path_factory.mktemp("browser-run")
    scen = folder / "toy.toml"
    scen.write_text(TOY_SCENARIO)
    res = sweep(scen, ["seats[0].params.boost=0,1,2"], games=60, jobs=1, out=folder / "run")
    return res.out_dir / "report.html"


def test_report_in_headless_chromium(browser, report_html):
    """No console error at laptop width, no sideways scroll, charts loaded with titles,
    sortable tables; keeps a screenshot."""
    dt = browser
    for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
        dt.call(domain)
    dt.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT,
            deviceScaleFactor=1, mobile=False)
    dt.call("Page.navigate", url=report_html.as_uri())
    dt.wait_for("Page.loadEventFired")

    assert dt.js("document.documentElement.dataset.sortable") == "ready"
    assert dt.js("document.title").endswith("study report")
    # laptop width: the page itself never scrolls sideways (wide tables scroll in their box)
    assert dt.js("document.documentElement.scrollWidth <= window.innerWidth")
    imgs = dt.js("Array.from(document.images).map(i => [i.naturalWidth, i.alt])")
    assert len(imgs) >= 4 and all(w > 0 and alt for w, alt in imgs)
    assert dt.js("document.querySelectorAll('figcaption').length") == len(imgs)

    # sort the sweep table by its "win rate" column, both ways
    table = ("Array.from(document.querySelectorAll('h2')).find(h => h.textContent.startsWith("
             "'Sweep')).nextElementSibling.nextElementSibling.querySelector('table')")
    col = dt.js(f"Array.from({table}.tHead.rows[0].cells).findIndex(c => "
                "c.textContent === 'win rate')")
    assert col >= 0
    read = (f"Array.from({table}.tBodies[0].rows).map(r => "
            f"parseFloat(r.cells[{col}].textContent))")
    dt.js(f"{table}.tHead.rows[0].cells[{col}].click()")
    up = dt.js(read)
    assert up == sorted(up) and len(up) > 3
    dt.js(f"{table}.tHead.rows[0].cells[{col}].click()")
    assert dt.js(read) == sorted(up, reverse=True)

    shot = dt.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "report.png").write_bytes(base64.b64decode(shot["data"]))
    full = dt.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    (SHOTS / "report-full.png").write_bytes(base64.b64decode(full["data"]))
    assert dt.errors() == []


@pytest.fixture(scope="module")
def wide_html(tmp_path_factory):
    """A report page (the renderer's own HTML and CSS) with a table wider than any laptop
    window: long arm names and 14 columns of rates with intervals, 40 rows."""
    folder = tmp_path_factory.mktemp("wide")
    rows = [{"variant": f"palace+monastery+office+guard_tower+farm+variant_{i:02d}",
             **{f"seat {s} win rate": f"{20 + (i + s) % 9}.{s % 10} % [{15 + s % 5}.0, {30 + s % 5}.5]"
                for s in range(14)}}
            for i in range(40)]
    blocks = [("h", "Wide"), ("p", "A wide table."), ("table", pd.DataFrame(rows)), ("p", "After it.")]
    path = folder / "report.html"
    path.write_text(to_html("wide: study report", blocks, folder), encoding="utf-8")
    return path


def _load(dt: DevTools, page: Path, width: int) -> None:
    dt.call("Page.enable")
    dt.call("Emulation.setDeviceMetricsOverride", width=width, height=HEIGHT, deviceScaleFactor=1,
            mobile=False)
    dt.events.clear()
    dt.call("Page.navigate", url=page.as_uri())
    dt.wait_for("Page.loadEventFired")


# Per table box: is it wider than its box, can it scroll sideways, is it inside the window's
# height, and does every heading lie inside the box's scrollable width (nothing clipped)?
_BOXES = """Array.from(document.querySelectorAll('div.scroll')).map(function(b){
var ths=Array.from(b.querySelectorAll('thead th'));
return {wide: b.scrollWidth > b.clientWidth, scrolls: getComputedStyle(b).overflowX === 'auto',
        tall: b.getBoundingClientRect().height > window.innerHeight,
        clipped: ths.filter(function(th){var o=b.getBoundingClientRect();
          return th.getBoundingClientRect().right - o.left + b.scrollLeft > b.scrollWidth + 1;}).length};})"""

# Bring heading i of the first box into view inside the box; is it visible and on top there?
_SHOW = """(function(i){var b=document.querySelector('div.scroll');var th=b.querySelectorAll('thead th')[i];
b.scrollIntoView({block:'start'});th.scrollIntoView({block:'nearest',inline:'end'});
var r=th.getBoundingClientRect(),o=b.getBoundingClientRect();
var top=document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return r.left >= o.left - 1 && r.right <= o.right + 1 && r.right <= window.innerWidth
       && (top === th || th.contains(top));})"""


def test_wide_tables_scroll_in_their_box_at_1280(browser, wide_html, report_html):
    """At 1280 px a table wider than the page scrolls sideways inside its box, the box is no
    taller than the window (its scroll bar is in view), and every column can be scrolled into
    view uncovered; in a real report no table's column is clipped."""
    dt = browser
    _load(dt, wide_html, NARROW)
    assert dt.js("document.documentElement.scrollWidth <= window.innerWidth")
    (box,) = dt.js(_BOXES)
    assert box == {"wide": True, "scrolls": True, "tall": False, "clipped": 0}
    n = dt.js("document.querySelectorAll('div.scroll thead th').length")
    assert n == 15
    hidden = [i for i in range(n) if not dt.js(f"{_SHOW}({i})")]
    assert hidden == []
    # the last column's last cell too, after scrolling the box down and to the right
    assert dt.js("""(function(){var b=document.querySelector('div.scroll');b.scrollTop=b.scrollHeight;
        b.scrollLeft=b.scrollWidth;var c=b.querySelector('tbody tr:last-child td:last-child');
        var r=c.getBoundingClientRect(),o=b.getBoundingClientRect();
        return r.right <= o.right + 1 && r.bottom <= o.bottom + 1 && r.top >= o.top;})()""")
    shot = dt.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "wide-table-1280.png").write_bytes(base64.b64decode(shot["data"]))

    _load(dt, report_html, NARROW)
    assert dt.js("document.documentElement.scrollWidth <= window.innerWidth")
    boxes = dt.js(_BOXES)
    assert boxes and all(b["clipped"] == 0 and b["scrolls"] and not b["tall"] for b in boxes)
    assert dt.errors() == []


FIRST_SCREEN = (1280, 800)  # a laptop browser window: the Answers must be seen without scrolling


@pytest.fixture(scope="module")
def simulate_html(tmp_path_factory):
    """A simulate report of the toy game: variants, several policies, key findings."""
    from conftest import TOY_SCENARIO

    from analyzer.api import simulate

    folder = tmp_path_factory.mktemp("browser-simulate")
    scen = folder / "toy.toml"
    scen.write_text(TOY_SCENARIO)
    return simulate(scen, games=60, jobs=1, out=folder / "run", progress=False).out_dir / "report.html"


# The Answers box (table and chart): where its parts are on the page, in CSS pixels
_ANSWERS = """(function(){var box=document.getElementById('answers-box');
var h=Array.from(document.querySelectorAll('h2')).find(function(x){return x.id==='answers';});
function r(e){var b=e.getBoundingClientRect();return {top:b.top,bottom:b.bottom,left:b.left,
right:b.right,width:b.width,height:b.height};}
var img=box.querySelector('figure img');
return {heading:r(h), first_h2:document.querySelector('h2').id, table:r(box.querySelector('table')),
rows:box.querySelectorAll('tbody tr').length, chart:r(img), loaded:img.naturalWidth>0};})()"""


@pytest.mark.parametrize("page", ["simulate_html", "report_html"])
def test_the_answers_and_their_chart_are_in_the_first_screen(browser, page, request):
    """At 1280×800 the report opens with the Answers: the first heading, its table with a row
    per answer and its chart both wholly inside the first screen, side by side."""
    dt = browser
    width, height = FIRST_SCREEN
    dt.call("Page.enable")
    dt.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
            deviceScaleFactor=1, mobile=False)
    dt.events.clear()
    dt.call("Page.navigate", url=request.getfixturevalue(page).as_uri())
    dt.wait_for("Page.loadEventFired")
    got = dt.js(_ANSWERS)
    assert got["first_h2"] == "answers" and got["rows"] >= 2 and got["loaded"]
    for part in ("heading", "table", "chart"):
        box = got[part]
        assert box["top"] >= 0 and box["bottom"] <= height, (part, box)
        assert box["right"] <= width and box["height"] > 0
    assert got["chart"]["left"] >= got["table"]["right"] - 1  # beside the table, not under it
    shot = dt.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"first-screen-{page}.png").write_bytes(base64.b64decode(shot["data"]))
    assert dt.errors() == []
