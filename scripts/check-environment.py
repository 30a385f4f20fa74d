#!/usr/bin/env python3
"""Every AOPT_* environment variable the code reads is in docs/environment.md's table.

A read is, in C/C++ sources, a call getenv("AOPT_X") (also std::getenv, secure_getenv and the
small helpers env, env_or, env_us, env_count, env_u64 whose first argument is the name); in
shell scripts $AOPT_X or ${AOPT_X...}; in Python os.environ["AOPT_X"], os.environ.get("AOPT_X")
or os.getenv("AOPT_X"); in CMake $ENV{AOPT_X}. The table is the rows of docs/environment.md
whose first cell is `AOPT_X`. The check fails (exit 1) for a variable read but not in the table
(naming the file and line that reads it) and for a row whose variable no code names any more.

Usage: scripts/check-environment.py [--root DIR] [--list]   (--list: every read, one a line)
"""

import argparse
import os
import re
import sys

SKIP_DIRS = {"build", ".git", "docs"}
SELF = "scripts/check-environment.py"
READS = [
    ((".cpp", ".cc", ".c", ".h", ".hpp", ".inc"),
     re.compile(r'\b(?:secure_getenv|getenv|env|env_or|env_us|env_count|env_u64)\s*\(\s*"(AOPT_[A-Z0-9_]+)"')),
    ((".sh",), re.compile(r'\$\{?(AOPT_[A-Z0-9_]+)')),
    ((".py",), re.compile(r'os\.(?:environ(?:\.get)?\s*[\[(]|getenv\s*\()\s*["\'](AOPT_[A-Z0-9_]+)')),
    (("CMakeLists.txt", ".cmake"), re.compile(r'\$ENV\{(AOPT_[A-Z0-9_]+)\}')),
]
ROW = re.compile(r'^\|\s*`(AOPT_[A-Z0-9_]+)`\s*\|')
NAME = re.compile(r'\bAOPT_[A-Z0-9_]+\b')


def source_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel != "." and (rel.split(os.sep)[0] in SKIP_DIRS or rel.split(os.sep)[0].startswith(".")):
            dirnames[:] = []
            continue
        dirnames.sort()
        for fn in sorted(filenames):
            yield os.path.join(dirpath, fn)


def scan(root):
    reads = {}      # name -> [(file, line)]
    mentioned = set()
    for path in source_files(root):
        patterns = [rx for ends, rx in READS if path.endswith(ends)]
        if not patterns and not path.endswith((".toml", ".service", ".txt", ".md")):
            continue
        if os.path.relpath(path, root) == SELF:
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
        except OSError:
            continue
        rel = os.path.relpath(path, root)
        if rel == SELF:
            continue
        for n, line in enumerate(lines, 1):
            mentioned.update(NAME.findall(line))
            for rx in patterns:
                for m in rx.finditer(line):
                    reads.setdefault(m.group(1), []).append((rel, n))
    return reads, mentioned


def table(root):
    path = os.path.join(root, "docs", "environment.md")
    rows = {}
    if not os.path.isfile(path):
        print("docs/environment.md is missing: it holds the table of every AOPT_* variable the code reads")
        return rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = ROW.match(line)
            if m:
                if m.group(1) in rows:
                    print(f"docs/environment.md:{n}: {m.group(1)} has a second row (first at line {rows[m.group(1)]})")
                rows.setdefault(m.group(1), n)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    root = os.path.abspath(a.root)
    reads, mentioned = scan(root)
    if a.list:
        for name in sorted(reads):
            print(name, " ".join(f"{f}:{n}" for f, n in reads[name]))
        return 0
    rows = table(root)
    problems = []
    for name in sorted(reads):
        if name not in rows:
            where = ", ".join(f"{f}:{n}" for f, n in reads[name][:3])
            problems.append(f"{name} is read ({where}) but docs/environment.md has no row for it; add one "
                            "(name, who reads it, meaning, default)")
    for name, n in sorted(rows.items()):
        if name not in mentioned:
            problems.append(f"docs/environment.md:{n}: {name} is named by no code any more; remove its row")
    for line in problems:
        print(line)
    if problems:
        return 1
    print(f"environment ok: {len(reads)} AOPT_* variables read, {len(rows)} rows in docs/environment.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
