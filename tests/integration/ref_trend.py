#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare vigil's copy of the reference's summary block with the reference's own, but
for the one deliberate difference: the leak-check rows.

usage: ref_trend.py REF_TXT VIGIL_TXT SPAN

The reference prints a RISING / falling verdict (first against last quarter) from
any 8 values, seconds of data included; vigil says "too short to tell (SPAN)" below
30 min and 30 samples (core/host_acc.c). Every line outside the rows under
"  Trend (the leak check):" must be byte-identical (VIGIL_TXT may go on after the
block); each reference row must have vigil's "too short to tell (SPAN" row for its
column, and vigil's rows must all be such rows. Exit 0 when so; else 1 and a diff.
"""
import difflib
import re
import sys

HEAD = "  Trend (the leak check):"
VERDICT = re.compile(r"^  (\S+) +(RISING |falling)  +[-+][0-9.]+ \(first->last quarter\)$")


def split(lines):
    """(the lines with the trend rows left out, the trend rows)"""
    out, rows, inside = [], [], False
    for ln in lines:
        if inside and ln == "":
            inside = False
        if inside:
            rows.append(ln)
            continue
        out.append(ln)
        if ln == HEAD:
            inside = True
    return out, rows


def main():
    ref_path, vigil_path, span = sys.argv[1:4]
    ref = open(ref_path, encoding="utf-8").read().split("\n")
    vig = open(vigil_path, encoding="utf-8").read().split("\n")
    ref_rest, ref_rows = split(ref)
    vig_rest, vig_rows = split(vig)
    vig_rest = vig_rest[:len(ref_rest)]
    good = True
    if ref_rest != vig_rest:
        good = False
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(ref_rest, vig_rest, "reference", "vigil", lineterm=""))
    said = {}
    for row in vig_rows:
        m = re.match(r"^  (\S+) +too short to tell \((.*)\)$", row)
        if not m or not m.group(2).startswith(span):
            print(f"vigil gives a verdict or another span: {row!r}")
            good = False
        else:
            said[m.group(1)] = row
    for row in ref_rows:
        m = VERDICT.match(row)
        if not m or m.group(1) not in said:
            print(f"reference row without vigil's 'too short to tell ({span}': {row!r}")
            good = False
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
