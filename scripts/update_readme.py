#!/usr/bin/env python3
"""Regenerates the result tables of README.md and docs/*.md from the committed result data, so that a
table cannot disagree with its measurement. A generated block is

    <!-- generated: scripts/results_table.py docs/results/x/a.json docs/results/x/b.json; scripts/... -->
    ...table...
    <!-- end generated -->

Each ';'-separated command is run from the repository's root and its Markdown tables joined into one
(the header of the first kept). `--check` changes nothing and fails where a page is out of date.

    scripts/update_readme.py [--check]
"""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"(<!-- generated: (.*?) -->\n)(.*?)(<!-- end generated -->)", re.S)


def render(commands):
    lines = []
    for i, command in enumerate(c.strip() for c in commands.split(";")):
        argv = shlex.split(command)
        out = subprocess.run([sys.executable] + argv, cwd=ROOT, capture_output=True, text=True, check=True).stdout
        rows = out.rstrip("\n").split("\n")
        lines += rows if i == 0 else rows[2:]
    return "\n".join(lines) + "\n"


def main(argv):
    pages = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    stale, blocks = [], 0
    for page in pages:
        path = os.path.join(ROOT, page)
        text = open(path).read()
        new = BLOCK.sub(lambda m: m.group(1) + render(m.group(2)) + m.group(4), text)
        blocks += len(BLOCK.findall(text))
        if new != text:
            stale.append(page)
            if "--check" not in argv:
                open(path, "w").write(new)
    if "--check" in argv:
        if stale:
            print("update_readme.py: generated tables differ from the result data in " + ", ".join(stale) +
                  "; run scripts/update_readme.py")
            return 1
        print(f"update_readme.py: {blocks} generated tables in {len(pages)} pages up to date")
        return 0
    print(f"update_readme.py: {blocks} generated tables, " + (f"updated in {', '.join(stale)}" if stale else "unchanged"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
