#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Print what the reference monitor's summarise() prints for a host CSV.

usage: report_ref.py SEED_FILE HOST_CSV

SEED_FILE is the reference monitor_player.py as saved in seeds/ (its first line is the
path it came from, so the Python starts at the docstring). The CSV is read the way
`vigil report` reads it: a row without its final newline (torn) or with a different
number of cells than the header (damaged) is left out; an empty cell is None; a cell
that reads as a number is one; anything else stays text.
"""
import contextlib
import csv
import io
import sys
import types


def load_reference(path):
    try:
        import psutil  # noqa: F401  (the reference imports it; summarise() never uses it)
    except ImportError:
        sys.modules['psutil'] = types.ModuleType('psutil')
    text = open(path, encoding='utf-8').read()
    src = text[text.index('"""'):]
    ns = {'__name__': 'monitor_player_reference'}
    exec(compile(src, 'monitor_player.py', 'exec'), ns)
    return ns


def value(cell):
    if cell == '':
        return None
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return cell


def read_rows(path):
    data = open(path, newline='', encoding='utf-8').read()
    if not data.endswith('\n'):
        data = data[:data.rfind('\n') + 1]  # drop the torn last line
    reader = csv.reader(io.StringIO(data, newline=''))
    header = next(reader)
    rows = []
    for cells in reader:
        if len(cells) != len(header):
            continue
        row = {k: value(v) for k, v in zip(header, cells)}
        row['timestamp'] = cells[0]
        row['throttle_flags'] = cells[header.index('throttle_flags')]
        rows.append(row)
    return rows


def main():
    ns = load_reference(sys.argv[1])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ns['summarise'](read_rows(sys.argv[2]))
    sys.stdout.write(out.getvalue())


if __name__ == '__main__':
    main()
