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


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def md_table(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of ``df`` (index dropped)."""
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
    return "\n".join(out)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
th{background:#f3f3f3} img{max-width:100%} figure{margin:1rem 0}
figcaption{font-size:.85rem;color:#555} code{background:#f3f3f3;padding:0 .2rem}
.scroll{overflow-x:auto;max-width:100%} th.sortable{cursor:pointer;white-space:nowrap}
th.sortable:hover{background:#e6e6e6}
th[aria-sort=ascending]::after{content:" ▲";font-size:.75em}
th[aria-sort=descending]::after{content:" ▼";font-size:.75em}
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
    """Escape, then the two Markdown marks the sections use: ``**bold**`` and `` `code` ``."""
    text = html.escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def to_html(title: str, blocks: list[tuple], chart_dir: Path) -> str:
    """The report as one self-contained HTML page (charts embedded from ``chart_dir``)."""
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>"]
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append(f"<h2>{html.escape(block[1])}</h2>")
        elif kind == "p":
            out.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "table":
            out.append('<div class="scroll">' + block[1].to_html(index=False, border=0, escape=True)
                       + "</div>")
        elif kind == "chart":
            data = base64.b64encode((chart_dir / block[1]).read_bytes()).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(block[2])}" '
                       f'src="data:image/png;base64,{data}"><figcaption>{html.escape(block[2])}'
                       "</figcaption></figure>")
    out.append(f"<script>{_SORT_JS}</script>")
    out.append("</body></html>")
    return "\n".join(out)
