#!/usr/bin/env python3
"""Markdown table of where NCCL-backend executes spend their time: from the output of CLI runs made
with DTR_PERF_REPORT=1 (stdout and stderr in one log a run), rank 0's report beside the CLI's row.

    DTR_PERF_REPORT=1 mpirun -np 2 build/disttranspose -B nccl -r 23170 -c 23170 > run.log 2>&1
    scripts/report_table.py run.log ...

A log may hold several runs; each report is matched with the CLI row of the same shape and type.
Times are medians in microseconds.
"""
import re
import sys

REPORT = re.compile(r":0 DTR REPORT (.*)$")
HEADER = re.compile(r"nccl (\d+) x (\d+) (\S+?)(?: \(batched\))?, \d+ ranks")
ROW = re.compile(r"^ +(\d+) +(\d+) +(\d+) +(\S+) +\d+ +nccl\S* +\S+ +(\d+) \| +([\d.]+) .*\| +([\d.]+) +([\d.]+) \| +(\d+)")


def size(b):
    for unit, n in (("Gi", 1 << 30), ("Mi", 1 << 20)):
        if b >= n * 0.99:
            return f"{b / n:.0f} {unit}"
    return str(b)


def number(pattern, text):
    m = re.search(pattern, text)
    return float(m.group(1)) if m else None


def runs(path):
    """(CLI row, report lines) pairs of one log, matched by shape and type: rank 0's report of a plan
    (printed on stderr when the plan is destroyed, so it may come before the row in the log)."""
    rows, reports = {}, []
    for line in open(path, errors="replace"):
        m = ROW.match(line)
        if m:
            rows[(m.group(2), m.group(3), m.group(4))] = m.groups()
            continue
        m = REPORT.search(line.rstrip("\n"))
        if not m:
            continue
        head = HEADER.match(m.group(1))
        if head:
            reports.append((head.groups(), []))
        elif reports:
            reports[-1][1].append(m.group(1))
    for key, report in reports:
        if key in rows:
            yield rows[key], report


def main(paths):
    head = ["dtype", "bytes/rank", "shape", "stages", "time (µs)", "a2a (µs)", "ratio", "before the first message",
            "exchange", "after the last arrival", "messages by round", "local passes", "beside the exchange"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join(["---"] * 3 + ["---:"] * (len(head) - 3)) + " |")
    for path in paths:
        for (nbytes, rows, cols, dtype, stages, time, a2a, ratio, wrong), report in runs(path):
            text = "\n".join(report)
            shape = f"{rows}²" if rows == cols else f"{rows} × {cols}"
            m = re.search(r"messages by round: ([\d., ]+)", text)
            local = number(r"local passes ([\d.]+)", text)
            hidden = number(r"of which ([\d.]+)", text)
            share = f" ({100 * hidden / local:.0f} %)" if local and hidden is not None else ""
            first, exchange, last = (number(p, text) for p in (r"before the first message ([\d.]+)",
                                                                r"exchange ([\d.]+)", r"after the last arrival ([\d.]+)"))
            cells = [dtype, size(int(nbytes)), shape, stages, time, a2a, ratio, f"{first:.1f}", f"{exchange:.1f}",
                     f"{last:.1f}", m.group(1).strip() if m else "", f"{local:.1f}", f"{hidden:.1f}{share}"]
            if wrong != "0":
                cells[6] += f" ({wrong} wrong)"
            print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
