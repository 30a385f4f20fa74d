#!/usr/bin/env python3
"""The layer check: dependencies between the project's rooms point one way, down.

The order is declared once, in LAYERS below (bottom first). A room is a top-level directory of
the repository; its libraries are the add_library() targets of the CMakeLists.txt files under
it. A library may link (target_link_libraries) and include (#include "...") only libraries of
its own room or of a room in a lower layer; rooms of one layer are siblings and know nothing of
each other. The script reads

  * every CMakeLists.txt outside tests/ and build/: add_library, target_link_libraries and
    target_include_directories (a directory's `include/` when none is given);
  * every #include "..." of each library's sources and headers, resolved as the compiler does
    (the file's own directory, the library's include directories, then those of every other
    project library; an include that resolves nowhere, a system or third-party header, is not
    a dependency);

and prints one line per violation (`storage -> search: storage/include/...:14 includes
aopt/search/experience.h`), exit status 1. With --diagram it prints the diagram
ARCHITECTURE.md must show; the check also fails when ARCHITECTURE.md does not contain it.

Usage: scripts/check-layers.py [--root DIR] [--diagram]
"""

import argparse
import os
import re
import sys

# Bottom first. Rooms of one layer are siblings. ARCHITECTURE.md draws this list (--diagram).
LAYERS = [
    ["common", "sim"],
    ["vocab"],
    ["protocols", "config", "monitoring", "storage", "evaluation", "search"],
    ["llm"],
    ["jobs", "actors"],
    ["apps"],
]

SKIP_DIRS = {"build", "tests", ".git", "examples", "docs", "calibration", "scripts", "cmake"}
SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc", ".c", ".inc")


def room_rank():
    rank = {}
    for i, layer in enumerate(LAYERS):
        for room in layer:
            rank[room] = i
    return rank


def diagram():
    parts = []
    for layer in LAYERS:
        parts.append(layer[0] if len(layer) == 1 else "{ " + ", ".join(layer) + " }")
    return " ← ".join(parts)


def strip_cmake_comments(text):
    return "\n".join(line.split("#", 1)[0] if not line.lstrip().startswith("#") else "" for line in text.splitlines())


def cmake_calls(text, name):
    """Yields the argument tokens of every call `name(...)` (no nested parentheses needed)."""
    for m in re.finditer(r"\b" + name + r"\s*\(([^)]*)\)", text, re.S):
        yield m.group(1).split()


class Library:
    def __init__(self, name, cmake_dir, room):
        self.name = name
        self.cmake_dir = cmake_dir  # absolute
        self.room = room
        self.links = []  # [(target, cmake file)]
        self.include_dirs = []
        self.files = []  # absolute paths of its sources and headers


def read_libraries(root):
    libs = {}
    order = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        top = rel.split(os.sep)[0]
        if rel != "." and (top in SKIP_DIRS or top.startswith(".")):
            dirnames[:] = []
            continue
        dirnames.sort()
        if "CMakeLists.txt" not in filenames or rel == ".":
            continue
        path = os.path.join(dirpath, "CMakeLists.txt")
        with open(path, encoding="utf-8") as f:
            text = strip_cmake_comments(f.read())
        for args in cmake_calls(text, "add_library"):
            if args and not args[0].startswith("$"):
                lib = Library(args[0], dirpath, top)
                libs[lib.name] = lib
                order.append(lib.name)
        for args in cmake_calls(text, "target_link_libraries"):
            if args and args[0] in libs:
                libs[args[0]].links += [(a, path) for a in args[1:]]
        for args in cmake_calls(text, "target_include_directories"):
            if args and args[0] in libs:
                for a in args[1:]:
                    a = a.replace("${CMAKE_CURRENT_SOURCE_DIR}", dirpath)
                    if os.path.isabs(a):
                        libs[args[0]].include_dirs.append(os.path.normpath(a))
    # A library's files: everything under its CMakeLists directory, except subdirectories that
    # have a CMakeLists.txt of their own (another library's home).
    for lib in libs.values():
        if not lib.include_dirs and os.path.isdir(os.path.join(lib.cmake_dir, "include")):
            lib.include_dirs.append(os.path.join(lib.cmake_dir, "include"))
    homes = {}
    for lib in libs.values():
        homes.setdefault(lib.cmake_dir, []).append(lib)
    for home, owners in homes.items():
        for dirpath, dirnames, filenames in os.walk(home):
            if dirpath != home and "CMakeLists.txt" in filenames:
                dirnames[:] = []
                continue
            for fn in filenames:
                if fn.endswith(SOURCE_EXT):
                    for lib in owners:
                        lib.files.append(os.path.join(dirpath, fn))
    return libs, order


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def resolve(include, including_file, lib, include_roots):
    # As the compiler does for "...": the including file's directory first, then the library's
    # own include directories, then every other library's.
    if os.path.isfile(os.path.join(os.path.dirname(including_file), include)):
        return lib
    for d in lib.include_dirs:
        if os.path.isfile(os.path.join(d, include)):
            return lib
    for d, lib in include_roots:
        if os.path.isfile(os.path.join(d, include)):
            return lib
    return None


def check(root):
    rank = room_rank()
    libs, order = read_libraries(root)
    problems = []
    for name in order:
        lib = libs[name]
        if lib.room not in rank:
            problems.append(f"{lib.room}: a room with library {name} that LAYERS in scripts/check-layers.py "
                            "does not place; add it to a layer")
    if problems:
        return problems

    def allowed(a, b):
        return a.room == b.room or rank[b.room] < rank[a.room]

    def why(a, b):
        return "a sibling" if rank[a.room] == rank[b.room] else "a layer above it"

    for name in order:
        lib = libs[name]
        for target, cmake in lib.links:
            other = libs.get(target)
            if other is not None and not allowed(lib, other):
                problems.append(f"{lib.room} -> {other.room}: {os.path.relpath(cmake, root)}: {name} links {target}, "
                                f"which is in {why(lib, other)}")
    include_roots = sorted(((d, lib) for lib in libs.values() for d in lib.include_dirs),
                           key=lambda p: -len(p[0]))
    seen = set()
    for name in order:
        lib = libs[name]
        for path in sorted(set(lib.files)):
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    other = resolve(m.group(1), path, lib, include_roots)
                    if other is None or allowed(lib, other):
                        continue
                    key = (path, n)
                    if key in seen:
                        continue
                    seen.add(key)
                    problems.append(f"{lib.room} -> {other.room}: {os.path.relpath(path, root)}:{n} includes "
                                    f"{m.group(1)} ({other.name}, in {why(lib, other)})")
    arch = os.path.join(root, "ARCHITECTURE.md")
    with open(arch, encoding="utf-8") as f:
        if diagram() not in f.read():
            problems.append("ARCHITECTURE.md: its layer diagram is not the declared order; it must contain the line\n  "
                            + diagram() + "\n(scripts/check-layers.py --diagram prints it)")
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    p.add_argument("--diagram", action="store_true", help="print the diagram ARCHITECTURE.md must contain")
    a = p.parse_args()
    if a.diagram:
        print(diagram())
        return 0
    problems = check(os.path.abspath(a.root))
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} dependencies point up or sideways; the order is LAYERS in scripts/check-layers.py "
              "(ARCHITECTURE.md, 'Dependencies point one way')", file=sys.stderr)
        return 1
    print("layers ok: " + diagram())
    return 0


if __name__ == "__main__":
    sys.exit(main())
