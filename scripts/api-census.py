#!/usr/bin/env python3
"""AscendC API census: what the operators of a tree use, and which of it `sim` provides.

Usage:
    scripts/api-census.py TREE [--sim SIM_DIR] [--out FILE]

TREE is an operator tree (e.g. cann-ops' src/): every directory holding op_kernel/ or op_host/
is one operator. For each operator the script reads its op_kernel/ and op_host/ sources and
collects the names they use that they do not define themselves (nor the tree's shared `common`
directories): free and member function calls, types, macros and constants (ALL_CAPS), qualified
names (`AscendC::Add`, `ge::Shape`, `gert::TilingContext`) and the headers they include that the
tree does not hold. C++ keywords and the standard library are left out.

A name is provided by `sim` when sim/include or sim/host declares it (a function, class, struct,
enum, enumerator, alias, using-declaration, variable or #define); a qualified name when it is
declared inside a scope of that name (namespace or class), or when sim does not know the qualifier
as a scope at all (then the bare name decides). A header is provided when sim/include holds it.

Output: Markdown, two tables (kernel: op_kernel sources; host: op_host sources), one row per
name: how many operators use it, whether sim provides it, a few of the operators. Missing names
first, each group by count. The census is lexical (no preprocessor, no name lookup), so a row can
be a name an operator defines in a way the scanner does not see; the counts are what a reader
should look at first.
"""

import argparse
import collections
import os
import re
import sys

SOURCE_EXT = ('.cpp', '.cc', '.cxx', '.c', '.h', '.hpp', '.hh', '.inc')

KEYWORDS = set('''
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
xor xor_eq override final defined __attribute__ __restrict__ __restrict __inline__ __forceinline
'''.split())

# The C and C++ standard library and compiler builtins, used unqualified by some operators.
STD_NAMES = set('''
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ssize_t ptrdiff_t
intptr_t uintptr_t nullptr_t memcpy memset memcmp memmove strlen strcmp strncmp strcpy strncpy
strcat sprintf snprintf printf fprintf vsnprintf puts malloc free calloc realloc abort exit
atoi atol atof strtol strtoul strtod sqrt sqrtf exp expf log logf pow powf fabs fabsf abs floor
ceil floorf ceilf round roundf min max isnan isinf tanh tanhf sin cos sinf cosf fmod fmodf
numeric_limits vector string map unordered_map set pair make_pair tuple array move forward
swap to_string cout cerr endl assert va_list va_start va_end INT_MAX INT_MIN UINT_MAX UINT32_MAX
INT32_MAX INT64_MAX UINT64_MAX INT8_MAX INT16_MAX UINT8_MAX UINT16_MAX FLT_MAX FLT_MIN DBL_MAX
INFINITY NAN NULL EOF errno std size data begin end push_back emplace_back empty
resize reserve clear insert erase find at front back c_str length count first second
is_same enable_if conditional decay remove_cv remove_reference integral_constant true_type
false_type is_integral is_floating_point
__FILE__ __LINE__ __func__ __FUNCTION__ __VA_ARGS__ __cplusplus __GNUC__ __clang__
__has_include __builtin_expect __builtin_memcpy
'''.split())

STD_HEADERS = set('''
algorithm array atomic bitset cassert cctype cerrno cfloat chrono climits cmath complex cstdarg
cstddef cstdint cstdio cstdlib cstring ctime deque exception fstream functional initializer_list
iomanip ios iostream istream iterator limits list map memory mutex new numeric optional ostream
queue random ratio regex set sstream stack stdexcept string string_view thread tuple type_traits
typeinfo unordered_map unordered_set utility variant vector assert.h ctype.h errno.h float.h
limits.h math.h stdarg.h stddef.h stdint.h stdio.h stdlib.h string.h time.h unistd.h
cstdbool stdbool.h sys/types.h sys/stat.h fcntl.h dlfcn.h pthread.h
'''.split())

# Defined by the build (evaluation/CMakeLists.txt AOPT_KERNEL_FIXED_DEFINES, sim_backend's kernel_defines).
BUILD_MACRO_RE = re.compile(r'^(?:(?:ORIG_)?DTYPE_\w+|__CCE_AICORE__|__DAV_C220_VEC__|ASCENDC_CPU_DEBUG|__CCE_KT_TEST__|AOPT_OP_TYPE)$')

ACCESS = {'public', 'private', 'protected', 'virtual'}
EXPR_PREFIX = {'return', 'else', 'case', 'new', 'delete', 'throw', 'goto', 'do', 'co_return',
               'co_yield', 'sizeof', 'not', 'and', 'or'}

TOKEN_RE = re.compile(r'''
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>::|->|&&|\|\||<<=|>>=|[-+*/%&|^!=<>]=|\.\.\.|.)
''', re.S | re.X)

ACLNN_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"](?:opdev/|aclnn|aclnn_kernels/)', re.M)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
DEFINE_RE = re.compile(r'^\s*#\s*define\s+(\w+)', re.M)
PP_COND_RE = re.compile(r'^\s*#\s*(?:if|ifdef|ifndef|elif)\b([^\n]*)', re.M)
TILING_FIELD_RE = re.compile(r'TILING_DATA_FIELD_DEF(?:_ARR|_STRUCT)?\s*\(([^)]*)\)')


def read(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except OSError:
        return ''


DEFINE_HEAD_RE = re.compile(r'^\s*#\s*define\s+\w+(?:\(([^)]*)\))?')


def strip_preprocessor(text):
    """Preprocessor lines (with continuations) removed but for the bodies of #define, which are code."""
    out = []
    cont = None
    for line in text.split('\n'):
        if cont is not None or line.lstrip().startswith('#'):
            keep = cont == 'define'
            if cont is None:
                m = DEFINE_HEAD_RE.match(line)
                if m:
                    keep = True
                    line = line[m.end():]
            body = line.rstrip()
            more = body.endswith('\\')
            out.append(body[:-1] if (keep and more) else body if keep else '')
            cont = ('define' if keep else 'other') if more else None
            continue
        out.append(line)
    return '\n'.join(out)


def macro_params(text):
    names = set()
    for m in re.finditer(r'^\s*#\s*define\s+\w+\(([^)]*)\)', text, re.M):
        names.update(re.findall(r'\w+', m.group(1)))
    return names


def tokens(text):
    """Identifiers and punctuation of the code outside comments, strings and preprocessor lines."""
    toks = []
    for m in TOKEN_RE.finditer(strip_preprocessor(text)):
        kind = m.lastgroup
        if kind in ('ws', 'comment'):
            continue
        if kind == 'str':
            toks.append(('str', '""'))
        else:
            toks.append((kind, m.group()))
    return toks


def is_id(tok):
    return tok[0] == 'id'


def definitions(text, toks):
    """Names a file defines: functions, classes, aliases, variables, parameters, macros, fields."""
    names = set(DEFINE_RE.findall(text)) | macro_params(text)
    names.update(re.findall(r'BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)', text))
    for m in TILING_FIELD_RE.finditer(text):
        parts = [p.strip() for p in m.group(1).split(',')]
        if len(parts) >= 2:
            f = parts[1] if len(parts) < 3 else parts[-1] if 'ARR' not in m.group(0) else parts[2]
            f = re.sub(r'\W', '', f)
            names.update({f, 'set_' + f, 'get_' + f})
    n = len(toks)
    enum_depth = None
    depth = 0
    for i, t in enumerate(toks):
        v = t[1]
        if v == '{':
            depth += 1
        elif v == '}':
            depth -= 1
            if enum_depth is not None and depth < enum_depth:
                enum_depth = None
        if not is_id(t) or v in KEYWORDS:
            if v == 'enum':
                # enum [class|struct] Name [: type] { A, B = 1, ... }
                j = i + 1
                while j < n and toks[j][1] not in ('{', ';'):
                    if is_id(toks[j]) and toks[j][1] not in KEYWORDS:
                        names.add(toks[j][1])
                        break
                    j += 1
                while j < n and toks[j][1] not in ('{', ';'):
                    j += 1
                if j < n and toks[j][1] == '{':
                    enum_depth = depth + 1
            continue
        prev = toks[i - 1] if i else ('op', ';')
        nxt = toks[i + 1] if i + 1 < n else ('op', ';')
        if enum_depth is not None and depth == enum_depth and prev[1] in ('{', ','):
            names.add(v)
            continue
        if prev[1] in ('class', 'struct', 'union', 'namespace', 'typename', 'concept'):
            names.add(v)
            continue
        if prev[1] == 'using' and nxt[1] == '=':
            names.add(v)
            continue
        if prev[1] == '::' and i >= 2 and toks[i - 2][1] == '~':
            continue
        declarator_prev = (is_id(prev) and prev[1] not in EXPR_PREFIX and prev[1] not in ACCESS) \
            or prev[1] in ('>', '*', '&', '&&', '...')
        if declarator_prev and nxt[1] in (',', ')', '=', ';', '[', '{', '(', ':', '>'):
            names.add(v)
        elif prev[1] == '::' and nxt[1] == '(' and i >= 2 and is_id(toks[i - 2]):
            # out-of-class definition `Cls::Method(` counts as a definition only when followed by a body
            depth_p = 0
            j = i + 1
            while j < n:
                if toks[j][1] == '(':
                    depth_p += 1
                elif toks[j][1] == ')':
                    depth_p -= 1
                    if depth_p == 0:
                        break
                j += 1
            k = j + 1
            while k < n and toks[k][1] in ('const', 'override', 'noexcept', 'final'):
                k += 1
            if k < n and toks[k][1] in ('{', ':'):
                names.add(v)
    return names


def uses(toks):
    """(qualifier, name, kind) triples a file uses; kind: call, member, type, macro."""
    out = set()
    n = len(toks)
    for i, t in enumerate(toks):
        if not is_id(t):
            continue
        v = t[1]
        if v in KEYWORDS:
            continue
        prev = toks[i - 1] if i else ('op', ';')
        nxt = toks[i + 1] if i + 1 < n else ('op', ';')
        if nxt[1] == '::':
            continue  # a qualifier: the name after it is what is used
        qual = ''
        if prev[1] == '::':
            qual = toks[i - 2][1] if i >= 2 and is_id(toks[i - 2]) else '::'
            if qual == 'std' or qual == '::':
                continue
        call = nxt[1] in ('(', '<')
        if prev[1] in ('.', '->'):
            if call and v[:1].isupper():
                out.add(('.', v, 'member'))
            continue
        if v.isupper() or (v.upper() == v and any(c.isalpha() for c in v)):
            out.add((qual, v, 'macro'))
        elif call:
            out.add((qual, v, 'call' if nxt[1] == '(' else 'type'))
        elif v[:1].isupper() or qual or v.endswith('_t') or v in ('half',):
            # a type or a constant; lowercase bare names are too often local variables
            if is_id(nxt) or nxt[1] in ('*', '&', '>', ',', '{', ')', '::') or qual:
                out.add((qual, v, 'type'))
    return out


def pp_macro_uses(text):
    out = set()
    for m in PP_COND_RE.finditer(text):
        for name in re.findall(r'[A-Za-z_]\w*', m.group(1)):
            if name != 'defined':
                out.add(('', name, 'macro'))
    return out


def source_files(d):
    for root, _, files in os.walk(d):
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                yield os.path.join(root, f)


def operator_dirs(tree):
    ops = []
    for root, dirs, _ in os.walk(tree):
        if 'op_kernel' in dirs or 'op_host' in dirs:
            ops.append(root)
        dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
    return sorted(ops)


class SimDecls:
    """Names sim declares, each with the scopes (namespaces, classes) it is declared in."""

    def __init__(self, dirs, include_dir):
        self.scoped = collections.defaultdict(set)  # name -> set of innermost scope names
        self.scopes = set()
        self.include_dir = include_dir
        texts = [read(f) for d in dirs for f in source_files(d)]
        self.macros = set()
        for text in texts:
            self.macros.update(DEFINE_RE.findall(text))
        for text in texts:
            self.scan(text)

    def scan(self, text):
        for m in DEFINE_RE.finditer(text):
            self.scoped[m.group(1)].add('')
        toks = tokens(text)
        defs = definitions(text, toks)
        # scope tracking for qualified look-ups
        stack = []
        pending = None
        n = len(toks)
        for i, (kind, v) in enumerate(toks):
            if v in ('namespace', 'class', 'struct', 'union', 'enum') and i + 1 < n:
                j = i + 1
                if toks[j][1] in ('class', 'struct'):
                    j += 1
                if j < n and is_id(toks[j]):
                    # a forward declaration ends with ';' before any '{'; `namespace a::b {` is b
                    name = toks[j][1]
                    k = j + 1
                    while k < n and toks[k][1] not in ('{', ';', '(', ')', ','):
                        if v == 'namespace' and is_id(toks[k]):
                            name = toks[k][1]
                        k += 1
                    if k < n and toks[k][1] == '{':
                        pending = name
                        self.scopes.add(pending)
            elif v == '{':
                stack.append(pending or '')
                pending = None
            elif v == '}':
                if stack:
                    stack.pop()
            elif kind == 'id' and (v in defs or (
                    i >= 2 and toks[i - 1][1] == '(' and toks[i - 2][1] in self.macros and
                    i + 1 < n and toks[i + 1][1] in (',', ')'))):
                # declared here, or the first argument of one of sim's macros (AOPT_VEC_SCALAR(Muls, ...))
                # every enclosing scope: unscoped enumerators are names of the enclosing namespace
                self.scoped[v].update([s for s in stack if s] or [''])
            elif v == ';':
                pending = None
        # using-declarations: `using a::b;` declares b in the current scope (approximate: anywhere)
        for m in re.finditer(r'\busing\s+(?:[\w:]+::)?(\w+)\s*;', strip_preprocessor(text)):
            self.scoped[m.group(1)].add('')

    def provides(self, qual, name):
        if not qual and BUILD_MACRO_RE.match(name):
            return True
        scopes = self.scoped.get(name)
        if not scopes:
            return False
        if not qual or qual == '.' or qual not in self.scopes:
            return True
        return qual in scopes

    def has_header(self, h):
        return os.path.isfile(os.path.join(self.include_dir, h))


class TreeDefs:
    """Definitions of each source file of the tree, and of the files it includes from the tree."""

    def __init__(self, tree):
        self.tree = os.path.abspath(tree)
        self.cache = {}

    def file_defs(self, path):
        if path not in self.cache:
            text = read(path)
            self.cache[path] = (definitions(text, tokens(text)), INCLUDE_RE.findall(text))
        return self.cache[path]

    def resolve(self, including, h):
        d = os.path.dirname(including)
        while d.startswith(self.tree):
            c = os.path.join(d, h)
            if os.path.isfile(c):
                return os.path.normpath(c)
            d = os.path.dirname(d)
        return None

    def closure(self, path):
        """Definitions of `path` and of every tree file it includes, transitively."""
        seen = set()
        todo = [os.path.abspath(path)]
        defs = set()
        while todo:
            f = todo.pop()
            if f in seen:
                continue
            seen.add(f)
            d, incs = self.file_defs(f)
            defs |= d
            for h in incs:
                r = self.resolve(f, h)
                if r:
                    todo.append(r)
        return defs


def census(tree, sim):
    ops = operator_dirs(tree)
    tdefs = TreeDefs(tree)
    shared_defs = set()
    for d in ('common',):
        for f in source_files(os.path.join(tree, d)):
            shared_defs |= tdefs.file_defs(os.path.abspath(f))[0]
    all_rel = set()
    for f in source_files(tree):
        parts = os.path.relpath(f, tree).split(os.sep)
        for k in range(len(parts)):
            all_rel.add('/'.join(parts[k:]))
    usage = {'kernel': collections.defaultdict(set), 'host': collections.defaultdict(set)}
    aclnn_files = set()
    for op in ops:
        name = os.path.relpath(op, tree)
        per_side = {}
        defs = set(shared_defs)
        for side, sub in (('kernel', 'op_kernel'), ('host', 'op_host')):
            d = os.path.join(op, sub)
            if not os.path.isdir(d):
                continue
            used = set()
            headers = set()
            for f in source_files(d):
                text = read(f)
                if side == 'host' and ACLNN_INCLUDE_RE.search(text):
                    aclnn_files.add(f)
                    continue  # the aclnn/op_api layer: sim does not build or run it
                defs |= tdefs.closure(f)  # both sides: the kernel uses the host's tiling structs
                used |= uses(tokens(text)) | pp_macro_uses(text)
                headers |= {h for h in INCLUDE_RE.findall(text) if not tdefs.resolve(os.path.abspath(f), h)}
            per_side[side] = (used, headers)
        for side, (used, headers) in per_side.items():
            for qual, n, kind in used:
                if n in STD_NAMES or n in KEYWORDS:
                    continue
                if n in defs and qual in ('', '.'):
                    continue
                if qual not in ('', '.') and qual in defs and (n in defs or not sim.provides('', qual)):
                    continue  # a member of the operator's own namespace or class
                usage[side][(qual if qual != '.' else '', n, kind)].add(name)
            for h in headers:
                if h in STD_HEADERS or os.path.normpath(h) in all_rel:
                    continue
                usage[side][('', h, 'header')].add(name)
    return ops, usage, aclnn_files


def merge_kinds(rows):
    """One row per (qualifier, name): kinds joined, operator sets merged."""
    merged = {}
    for (qual, n, kind), opset in rows.items():
        key = (qual, n)
        if key not in merged:
            merged[key] = [set(), set()]
        merged[key][0].add(kind)
        merged[key][1] |= opset
    # a bare name also seen qualified: keep the qualified row, fold the bare one into it
    quals = collections.defaultdict(list)
    for (qual, n) in merged:
        if qual:
            quals[n].append(qual)
    for n, qs in quals.items():
        if ('', n) in merged and len(qs) == 1:
            kinds, opset = merged.pop(('', n))
            merged[(qs[0], n)][0].update(kinds)
            merged[(qs[0], n)][1].update(opset)
    return merged


def table(side, rows, sim, nops, lines):
    merged = merge_kinds(rows)
    entries = []
    for (qual, n), (kinds, opset) in merged.items():
        if 'header' in kinds:
            ok = sim.has_header(n)
        else:
            ok = sim.provides(qual, n)
        entries.append((ok, -len(opset), (qual + '::' if qual else '') + n, '/'.join(sorted(kinds)),
                        sorted(opset)))
    entries.sort(key=lambda e: (e[0], e[1], e[2].lower()))
    missing = sum(1 for e in entries if not e[0])
    lines.append('## %s API (op_%s sources)' % (side.capitalize(), side))
    lines.append('')
    lines.append('%d names used, %d provided by sim, **%d missing** (used by %d operators).' % (
        len(entries), len(entries) - missing, missing,
        len(set(o for e in entries if not e[0] for o in e[4]))))
    lines.append('')
    lines.append('| name | kind | operators | sim | e.g. |')
    lines.append('|---|---|---|---|---|')
    for ok, negc, name, kinds, opset in entries:
        eg = ', '.join(opset[:3]) + (', ...' if len(opset) > 3 else '')
        lines.append('| `%s` | %s | %d | %s | %s |' % (name, kinds, -negc, 'yes' if ok else '**no**', eg))
    lines.append('')


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('tree')
    ap.add_argument('--sim', default=os.path.join(here, '..', 'sim'))
    ap.add_argument('--out', help='write the Markdown here instead of stdout')
    ap.add_argument('--command', help='the command line to print at the top (default: argv)')
    args = ap.parse_args()
    if not os.path.isdir(args.tree):
        sys.exit('api-census: %s is not a directory (give an operator tree such as cann-ops/src)' % args.tree)
    inc = os.path.join(args.sim, 'include')
    if not os.path.isdir(inc):
        sys.exit('api-census: %s has no include/ (give the sim directory with --sim)' % args.sim)
    sim = SimDecls([inc, os.path.join(args.sim, 'host')], inc)
    ops, usage, aclnn_files = census(args.tree, sim)
    cmd = args.command or ' '.join(['scripts/api-census.py'] + sys.argv[1:])
    lines = ['# AscendC API census', '',
             'Generated by `%s` over %d operator directories (each directory holding op_kernel/ or'
             ' op_host/). Regenerate it with the corpus. A name is one the operators use and do not'
             ' define; `sim` = declared in sim/include or sim/host (headers: present in sim/include).'
             ' Lexical, so a few rows are an operator\'s own names the scanner did not see defined.'
             % (cmd, len(ops)), '',
             'Left out: %d op_host sources of the aclnn/op_api layer (they include `opdev/...` or'
             ' `aclnn...` headers; sim neither builds nor runs that layer).' % len(aclnn_files), '']
    for side in ('kernel', 'host'):
        table(side, usage[side], sim, len(ops), lines)
    text = '\n'.join(lines)
    if args.out:
        with open(args.out, 'w', encoding='utf-8') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
