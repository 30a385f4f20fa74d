#!/usr/bin/env python3
"""Lists the project's functions by length (lines from the opening to the closing brace) and,
with --check, holds the line the house keeps (issue 37): no function over --limit lines (150)
except those named in --allow FILE at no more than the length written there, so a long function
can only shrink and no new one can pass the limit.

The scan is textual, not a parse: comments, string and character literals are blanked; a `{`
outside any function body opens a function when the text before it (back to the previous `;`,
`{` or `}`) holds a parameter list and is not a class, struct, union, enum, namespace or an
initializer (`= {`). Lambdas and local classes count as part of their enclosing function.

usage: scripts/long-functions.py [--root DIR] [--top N] [--limit 150] [--check --allow FILE]
       [--write-allow FILE]
"""
import argparse
import os
import re
import sys

DIRS = ["actors", "apps", "common", "evaluation", "jobs", "llm", "monitoring", "protocols", "search", "sim", "storage",
        "vocab", "config"]
EXTS = (".cpp", ".cc", ".h", ".hpp")
NOT_FUNCTION = re.compile(r"^\s*(template\s*<[^{]*>\s*)?(class|struct|union|enum|namespace|extern\s+\"C\")\b")


def blank(text):
    """Comments and literals become spaces (newlines kept), so braces inside them do not count."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#" and (i == 0 or text[text.rfind("\n", 0, i) + 1 : i].strip() == ""):
            j = i  # a preprocessor directive, continuation lines included
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r"[^\n]", " ", text[i:end]))
                i = end
            else:
                out.append(c)
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def name_of(head):
    """The qualified name before the parameter list (the first '(' of the head)."""
    before = head[: head.find("(")]
    m = re.search(r"((?:[A-Za-z_]\w*\s*(?:<[^<>]*>)?\s*::\s*)*~?(?:operator\s*\S+|[A-Za-z_]\w*))\s*$", before)
    return " ".join(m.group(1).split()) if m else before.strip()[-60:]


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read())
    found = []
    depth = 0
    fn_depth = None  # depth at which the current function's body opened
    last = 0  # index after the previous ; { or } at function-free level
    start_line = 0
    head = ""
    for i, c in enumerate(text):
        if c == "{":
            if fn_depth is None:
                h = text[last:i]
                if "(" in h and not NOT_FUNCTION.search(h) and not re.search(r"=\s*$", h) and not re.search(r"\)\s*=", h.split("(")[0] + ")"):
                    fn_depth = depth
                    start_line = text.count("\n", 0, i) + 1
                    head = h
            depth += 1
            if fn_depth is None:
                last = i + 1
        elif c == "}":
            depth -= 1
            if fn_depth is not None and depth == fn_depth:
                end_line = text.count("\n", 0, i) + 1
                found.append((end_line - start_line + 1, start_line, name_of(head)))
                fn_depth = None
            if fn_depth is None:
                last = i + 1
        elif c == ";" and fn_depth is None:
            last = i + 1
    return found


def scan(root):
    out = []
    for d in DIRS:
        base = os.path.join(root, d)
        for dirpath, _, files in os.walk(base):
            for fn in files:
                if fn.endswith(EXTS):
                    p = os.path.join(dirpath, fn)
                    rel = os.path.relpath(p, root)
                    for length, line, name in functions(p):
                        out.append((length, rel, line, name))
    out.sort(key=lambda x: (-x[0], x[1], x[2]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--allow", help="file of 'LENGTH PATH NAME' lines: functions allowed over the limit, at most that long")
    ap.add_argument("--write-allow", help="write today's functions over the limit as an allow file")
    a = ap.parse_args()
    fns = scan(a.root)
    over = [f for f in fns if f[0] > a.limit]
    if a.write_allow:
        with open(a.write_allow, "w") as f:
            f.write("# Functions over %d lines allowed for now, at most this long (scripts/long-functions.py; issue 37:\n"
                    "# cut them into named phases, then delete their line). LENGTH PATH NAME\n" % a.limit)
            for length, rel, _, name in over:
                f.write("%d %s %s\n" % (length, rel, name))
    if not a.check:
        print("%d functions over 100 lines, %d over %d" % (sum(1 for f in fns if f[0] > 100), len(over), a.limit))
        for length, rel, line, name in fns[: a.top]:
            print("%5d  %s:%d  %s" % (length, rel, line, name))
        return 0
    allowed = {}
    if a.allow:
        for raw in open(a.allow):
            raw = raw.strip()
            if not raw or raw.startswith("#"):
                continue
            length, rel, name = raw.split(" ", 2)
            allowed[(rel, name)] = int(length)
    bad = []
    for length, rel, line, name in over:
        cap = allowed.get((rel, name))
        if cap is None:
            bad.append("%s:%d: %s is %d lines, over the limit of %d: cut it into named phases (ARCHITECTURE.md)" %
                       (rel, line, name, length, a.limit))
        elif length > cap:
            bad.append("%s:%d: %s grew to %d lines (allowed %d while it waits to be cut): cut it, never grow it" %
                       (rel, line, name, length, cap))
    for msg in bad:
        print(msg)
    print("long-functions: %d over %d lines, %d allowed for now, %d problem(s)" % (len(over), a.limit, len(allowed), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
