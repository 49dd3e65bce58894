"""Turn a ``Doc`` (blocks of headings, paragraphs, tables and charts) into Markdown and HTML.

The HTML is self-contained: charts are embedded as base64 PNG data URIs, styles inline and one
small inline script that makes every table sortable (click a column heading), so it opens
offline in any browser.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import pandas as pd

from analyzer.report.citations import slug


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def md_table(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of ``df`` (index dropped); cells keep their inline
    Markdown (links, ``code``)."""
    head = "| " + " | ".join(_md_cell(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def to_markdown(title: str, blocks: list[tuple]) -> str:
    """The report as Markdown; charts link to ``charts/NAME``."""
    out = [f"# {title}", ""]
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out += [f"## {block[1]}", ""]
        elif kind == "p":
            out += [block[1], ""]
        elif kind == "table":
            out += [md_table(block[1]), ""]
        elif kind == "chart":
            out += [f"![{block[2]}](charts/{block[1]})", ""]
        elif kind == "side":  # a table with its chart: one under the other
            out += [md_table(block[1]), "", f"![{block[3]}](charts/{block[2]})", ""]
    return "\n".join(out)


# Prose keeps a readable line length (60rem); tables and charts may use the window's width. A
# table wider than that scrolls inside its box, which is never taller than the window (so its
# sideways scroll bar is in view), keeps its heading row (and, on a wide screen, its first
# column) in place while it scrolls, and shows a shadow on a side that has more columns.
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:80rem;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.45}
h1,h2,p{max-width:60rem}
table{border-collapse:separate;border-spacing:0;font-size:.9rem}
th,td{border:solid #ccc;border-width:0 1px 1px 0;padding:.25rem .5rem;text-align:left}
tr>:first-child{border-left-width:1px} thead th{border-top-width:1px}
th{background:#f3f3f3} img{max-width:100%} figure{margin:1rem 0}
figcaption{font-size:.85rem;color:#555} code{background:#f3f3f3;padding:0 .2rem}
td.num{white-space:nowrap}
.scroll{overflow:auto;max-width:100%;max-height:85vh;width:max-content;margin:.5rem 0 1rem;
background:linear-gradient(to right,#fff 30%,#fff0) left/2rem 100% no-repeat local,
linear-gradient(to left,#fff 30%,#fff0) right/2rem 100% no-repeat local,
radial-gradient(farthest-side at 0 50%,#0003,#0000) left/.8rem 100% no-repeat scroll,
radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/.8rem 100% no-repeat scroll}
.scroll table{margin:0} .scroll thead th{position:sticky;top:0;z-index:2}
@media (min-width:48rem){.scroll td:first-child{position:sticky;left:0;z-index:1;background:#fff}
.scroll thead th:first-child{left:0;z-index:3}}
th.sortable{cursor:pointer;white-space:nowrap}
th.sortable:hover{background:#e6e6e6}
th[aria-sort=ascending]::after{content:" ▲";font-size:.75em}
th[aria-sort=descending]::after{content:" ▼";font-size:.75em}
.side{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
.side>.scroll{flex:1 1 36rem;width:auto;max-height:none;font-size:.8rem}
.side td,.side th{padding:.15rem .4rem}
.side>figure{flex:0 1 26rem;margin:.5rem 0}
"""

# Click a heading to sort its table; numbers (leading number of "25.3 % [..]") sort as numbers.
_SORT_JS = r"""
(function(){
function key(td){var t=td.textContent.trim();var m=t.match(/^[+\u2212-]?\d+(\.\d+)?/);
return m?parseFloat(m[0].replace('\u2212','-')):t.toLowerCase();}
document.querySelectorAll('table').forEach(function(tb){
var ths=tb.querySelectorAll('thead th');var body=tb.tBodies[0];if(!body)return;
ths.forEach(function(th,i){th.classList.add('sortable');th.addEventListener('click',function(){
var asc=th.getAttribute('aria-sort')!=='ascending';
ths.forEach(function(o){o.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',asc?'ascending':'descending');
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);
var c=(typeof x===typeof y)?(x<y?-1:x>y?1:0):(typeof x==='number'?-1:1);return asc?c:-c;});
rows.forEach(function(r){body.appendChild(r);});});});});
document.documentElement.setAttribute('data-sortable','ready');
})();
"""


def _inline(text: str) -> str:
    """Escape, then the Markdown marks the sections use: ``**bold**``, `` `code` `` and
    ``[text](relative link)``."""
    text = html.escape(text, quote=False)
    text = re.sub(r"\[([^\[\]]+)\]\(([^()\s]+)\)",
                  lambda m: f'<a href="{html.escape(m.group(2))}">{m.group(1)}</a>', text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


# a cell that starts with a number (or is the "–" of a missing one): kept on one line
_NUMERIC = re.compile(r"^[+\-−]?\d|^–$")


def _td(text: str) -> str:
    num = ' class="num"' if _NUMERIC.match(text) else ""
    return f"<td{num}>{_inline(text)}</td>"


def html_table(df: pd.DataFrame) -> str:
    """``df`` as an HTML table in a scroll box; cells take the same inline marks as paragraphs."""
    head = "".join(f"<th>{_inline(str(c))}</th>" for c in df.columns)
    body = ["<tr>" + "".join(_td(str(value)) for value in row) + "</tr>"
            for row in df.itertuples(index=False)]
    # tabindex: a box that scrolls can be scrolled from the keyboard
    return (f'<div class="scroll" tabindex="0"><table><thead><tr>{head}</tr></thead><tbody>'
            + "\n".join(body) + "</tbody></table></div>")


def to_html(title: str, blocks: list[tuple], chart_dir: Path) -> str:
    """The report as one self-contained HTML page (charts embedded from ``chart_dir``)."""
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>"]
    for block in blocks:
        kind = block[0]
        if kind == "h":
            # the id GitHub gives the Markdown heading, so one in-report link works in both
            out.append(f'<h2 id="{slug(block[1])}">{html.escape(block[1])}</h2>')
        elif kind == "p":
            out.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "table":
            out.append(html_table(block[1]))
        elif kind in ("chart", "side"):
            name, caption = block[-2:]
            data = base64.b64encode((chart_dir / name).read_bytes()).decode("ascii")
            figure = (f'<figure><img alt="{html.escape(caption)}" '
                      f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}'
                      "</figcaption></figure>")
            out.append(figure if kind == "chart" else
                       f'<div class="side" id="answers-box">{html_table(block[1])}{figure}</div>')
    out.append(f"<script>{_SORT_JS}</script>")
    out.append("</body></html>")
    return "\n".join(out)
