#!/usr/bin/env python3
"""Checks of the docs against the tree (CI: the test docs_check):

  links  every relative link of README.md and docs/*.md reaches a file, and its #anchor a heading
         (or an <a id>) of that file
  paths  every path of the tree a page names in backticks (src/..., kernels/..., tests/..., tools/...,
         scripts/..., python/...) exists, and every docs/PAGE.md#anchor a source comment names resolves
  env    the table of docs/env.md lists exactly the DTR_* variables the library reads

    scripts/check_docs.py [links] [paths] [env]     (all by default)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def anchors(path):
    """GitHub's anchors of a Markdown file's headings, and its explicit <a id>s."""
    found, seen = set(), {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(2).lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
        found.update(re.findall(r'<a id="([^"]+)"', line))
    return found


def report(bad, summary):
    """Prints each problem and the check's summary line; true when there were none."""
    for b in bad:
        print(b)
    print("check_docs.py " + summary)
    return not bad


def doc_pages():
    pages = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
                                   if f.endswith(".md"))
    return pages + [p for p in ("python/README.md", "tests/README.md") if os.path.exists(os.path.join(ROOT, p))]


def source_files():
    for top in ("src", "kernels", "tools", "include", "tests", "python", "fortran"):
        for dp, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith((".c", ".h", ".cu", ".cpp", ".py", ".f90", ".F90", ".txt", ".cmake")):
                    yield os.path.join(dp, f)


def check_paths():
    bad, count = [], 0
    for page in doc_pages():
        text = open(os.path.join(ROOT, page), encoding="utf-8").read()
        for path in re.findall(r"`((?:src|kernels|tests|tools|scripts|python|fortran|include|examples)/[\w./-]*\w)`", text):
            count += 1
            if not os.path.exists(os.path.join(ROOT, path)):
                bad.append(f"{page}: `{path}`: no such path")
    for file in source_files():
        for page, anchor in re.findall(r"(docs/\w+\.md)#([\w-]+)", open(file, encoding="utf-8", errors="replace").read()):
            count += 1
            target = os.path.join(ROOT, page)
            if not os.path.exists(target) or anchor not in anchors(target):
                bad.append(f"{os.path.relpath(file, ROOT)}: {page}#{anchor}: no such page or heading")
    return report(bad, f"paths: {count} paths and references, {len(bad)} broken")


def check_links():
    pages = doc_pages()
    bad = []
    count = 0
    for page in pages:
        text = open(os.path.join(ROOT, page), encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
        for label, target in re.findall(r"\[([^\]]*)\]\(([^)\s]+)\)", text):
            if re.match(r"^(https?:|mailto:)", target):
                continue
            count += 1
            path, _, anchor = target.partition("#")
            file = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), path)) if path else os.path.join(ROOT, page)
            if not os.path.exists(file):
                bad.append(f"{page}: [{label}]({target}): no such file")
            elif anchor and file.endswith(".md") and anchor not in anchors(file):
                bad.append(f"{page}: [{label}]({target}): no heading #{anchor} in {os.path.relpath(file, ROOT)}")
    return report(bad, f"links: {count} links in {len(pages)} pages, {len(bad)} broken")


def check_env():
    read = set()
    for top in ("src", "tools"):
        for dp, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith((".c", ".h", ".cu")):
                    read.update(re.findall(r'"(DTR_[A-Z0-9_]+)"', open(os.path.join(dp, f)).read()))
    table = set(re.findall(r"^\| `(DTR_[A-Z0-9_]+)` \|", open(os.path.join(ROOT, "docs", "env.md")).read(), re.M))
    ok = True
    for v in sorted(read - table):
        print(f"docs/env.md: {v} is read by the code but not in the table")
        ok = False
    for v in sorted(table - read):
        print(f"docs/env.md: {v} is in the table but no code reads it")
        ok = False
    print(f"check_docs.py env: {len(table)} variables documented, {len(read)} read by the code")
    return ok


def main(argv):
    what = argv or ["links", "paths", "env"]
    ok = True
    if "links" in what:
        ok &= check_links()
    if "paths" in what:
        ok &= check_paths()
    if "env" in what:
        ok &= check_env()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
