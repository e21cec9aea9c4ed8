#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks on a DOM that headless Chromium dumped (--dump-dom) of a vigil page: that the
charts drew. Prints one "ok NAME: what" or "not ok NAME: what" line per check.

  dom_check.py NAME DOM_FILE [--svgs N] [--min-svgs N] [--min-points N]
               [--sections PREFIX=K] [--section-svgs PREFIX=N] [--title TEXT]
               [--text TEXT] [--absent-tag TAG] [--one-unit-axes] [--levels TITLE=N]

--svgs N            exactly N <svg> charts (--min-svgs: at least N)
--min-points N      every chart has a <path> with at least N points, and no <path>
                    has an empty d
--sections P=K      K <h2> headings start with P
--section-svgs P=N  each section whose <h2> starts with P holds N charts
--title TEXT        some <title> inside a chart (a marker's or a band's tooltip)
                    contains TEXT
--text TEXT         the page's text contains TEXT
--absent-tag TAG    no <TAG> element at all (e.g. script)
--one-unit-axes     every chart has one y-axis label (the rotated text), one unit of
                    those the charts use: never two units (°C / %) on one axis
--levels TITLE=N    some line whose tooltip starts with TITLE takes N+ distinct
                    heights (a history drawn, not a flat level)
"""
import argparse
import re
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.charts = []  # per svg: {"section", "paths": [points...]}
        self.section = ""
        self.sections = []
        self.titles = []
        self.lines = []  # (tooltip, d) of each titled <path>
        self.text = []
        self.tags = {}
        self.in_svg = 0
        self.in_h2 = False
        self.h2 = ""
        self.in_title = False
        self.title = ""
        self.in_axis = False
        self.path = None  # the <path> open: its d

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        a = dict(attrs)
        if tag == "h2":
            self.in_h2, self.h2 = True, ""
        elif tag == "svg":
            self.in_svg += 1
            self.charts.append({"section": self.section, "paths": []})
        elif tag == "path" and self.in_svg:
            d = a.get("d") or ""
            self.charts[-1]["paths"].append(len(re.findall(r"[ML]", d)))
            self.path = d
        elif tag == "text" and self.in_svg and (a.get("transform") or "").startswith("rotate(-90"):
            self.in_axis = True
            self.charts[-1].setdefault("axes", []).append("")
        elif tag == "title" and self.in_svg:
            self.in_title, self.title = True, ""

    def handle_endtag(self, tag):
        if tag == "h2" and self.in_h2:
            self.in_h2 = False
            self.section = self.h2.strip()
            self.sections.append(self.section)
        elif tag == "svg" and self.in_svg:
            self.in_svg -= 1
        elif tag == "title" and self.in_title:
            self.in_title = False
            self.titles.append(self.title)
            if self.path is not None:
                self.lines.append((self.title, self.path))
        elif tag == "path":
            self.path = None
        elif tag == "text":
            self.in_axis = False

    def handle_data(self, data):
        self.text.append(data)
        if self.in_h2:
            self.h2 += data
        if self.in_title:
            self.title += data
        if self.in_axis:
            self.charts[-1]["axes"][-1] += data


UNITS = {"%", "°C", "W", "MHz", "MB", "MiB", "V", "count"}


def report(name, good, what):
    print(("ok " if good else "not ok ") + name + ": " + what)


def pair(spec):
    prefix, _, n = spec.rpartition("=")
    return prefix, int(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("dom")
    ap.add_argument("--svgs", type=int)
    ap.add_argument("--min-svgs", type=int)
    ap.add_argument("--min-points", type=int)
    ap.add_argument("--sections", action="append", default=[])
    ap.add_argument("--section-svgs", action="append", default=[])
    ap.add_argument("--title", action="append", default=[])
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--absent-tag", action="append", default=[])
    ap.add_argument("--one-unit-axes", action="store_true")
    ap.add_argument("--levels", action="append", default=[])
    args = ap.parse_args()
    page = Page()
    with open(args.dom, encoding="utf-8", errors="replace") as f:
        page.feed(f.read())
    n = len(page.charts)
    if args.svgs is not None:
        report(args.name, n == args.svgs, f"{args.svgs} charts drawn (found {n})")
    if args.min_svgs is not None:
        report(args.name, n >= args.min_svgs, f"at least {args.min_svgs} charts drawn (found {n})")
    if args.min_points is not None:
        thin = [i for i, c in enumerate(page.charts)
                if not c["paths"] or max(c["paths"]) < args.min_points]
        empty = sum(1 for c in page.charts for p in c["paths"] if p == 0)
        report(args.name, n > 0 and not thin,
               f"every chart has a line of {args.min_points}+ points (short: charts {thin})")
        report(args.name, empty == 0, f"no empty <path> d (found {empty})")
    for spec in args.sections:
        prefix, k = pair(spec)
        got = sum(1 for s in page.sections if s.startswith(prefix))
        report(args.name, got == k, f"{k} sections '{prefix}...' (found {got})")
    for spec in args.section_svgs:
        prefix, k = pair(spec)
        counts = {}
        for c in page.charts:
            if c["section"].startswith(prefix):
                counts[c["section"]] = counts.get(c["section"], 0) + 1
        bad = {s: v for s, v in counts.items() if v != k}
        report(args.name, bool(counts) and not bad,
               f"{k} charts in each '{prefix}...' section (off: {bad})")
    for t in args.title:
        report(args.name, any(t in x for x in page.titles), f"a chart tooltip holds '{t}'")
    text = "".join(page.text)
    for t in args.text:
        report(args.name, t in text, f"the page says '{t}'")
    for tag in args.absent_tag:
        report(args.name, page.tags.get(tag, 0) == 0, f"no <{tag}> element")
    if args.one_unit_axes:
        bad = [c.get("axes") for c in page.charts
               if len(c.get("axes", [])) != 1 or c["axes"][0] not in UNITS]
        report(args.name, n > 0 and not bad, f"one unit on each chart's axis (off: {bad})")
    for spec in args.levels:
        prefix, k = pair(spec)
        most = 0
        for title, d in page.lines:
            if title.startswith(prefix):
                ys = {round(float(y), 1) for y in re.findall(r"[ML][-0-9.]+ ([-0-9.]+)", d)}
                most = max(most, len(ys))
        report(args.name, most >= k, f"a line '{prefix}...' at {k}+ heights (found {most})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
