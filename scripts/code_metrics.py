#!/usr/bin/env python3
"""Figures of the code's shape, measured the same way before and after a
restructuring (issues 29 and 48): the longest functions, rooms (a .h/.cc
pair) over 600 lines, coordinator/ including node/ headers, comparisons with
string literals outside the config and JSON edges, process-global mutable
state in all product code, the backends the storage conformance suite runs,
and how far each workload is a unit of its own: the product files outside
its folders that name it, the lines outside every workload folder that test
which workload a run is by name, and the workload folders' uses of the wire types.

Reads the product code only (common, wire, coordinator, node, inprocess,
sweep, main, report; not tests, bench or generated files). C++ is read as text: comments,
strings and preprocessor lines are blanked, then braces give the blocks; a
block whose head has a parameter list and is not a control statement is a
function.
Heuristic, but the same heuristic each time.

usage: scripts/code-metrics.sh [--list N] [--check DOC]
  --list N     how many of each to name
  --check DOC  exit 1 when a figure is past its limit in DOC's table of
               limits (the rows between "<!-- code-metrics limits -->" and
               "<!-- /code-metrics limits -->", each "| figure | limit |"),
               or when the table and this script name different figures
"""
import collections
import os
import re
import signal
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = ["common", "wire", "coordinator", "node", "inprocess", "sweep",
           "main", "report"]
# Where strings are the interface: configuration keys, YAML, JSON.
EDGES = {
    "common/config.cc", "common/config_keys.cc", "common/config_store_keys.cc",
    "common/config_run_keys.cc",
    "common/config_loader.cc", "common/experiment.cc", "common/storage_uri.cc",
    "coordinator/json_codec.cc", "coordinator/checkpoint/metadata_json.cc",
    "coordinator/result_from_json.cc",
    "report/sweep_data.cc", "common/serving/safetensors_sax.cc",
}
# Process-wide state that is meant to be, each named in
# docs/architecture.md: the secrets registry, the descriptor reserve, the
# log's level and lock, the serial of WriteFileAtomically's temporaries.
DELIBERATE_STATE = {"common/secrets.cc", "common/fd_reserve.cc",
                    "common/log.cc", "common/files.cc"}
CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "return"}
# Each workload's own folders (a prefix of the path) and its name as the
# code spells it (matched case-insensitively, in code and strings, not in
# comments). datagen and dataload share the dataset folders for now; what
# both sides of a dataset workload hold (its keys, jobs, layout, manifest,
# sampler) is in common/dataset/; the checkpoint's block of the
# configuration in common/checkpoint/.
WORKLOADS = {
    "checkpoint": ["common/checkpoint/", "coordinator/checkpoint/",
                   "node/checkpoint/"],
    "datagen": ["common/dataset/", "coordinator/dataset/", "node/dataset/"],
    "dataload": ["common/dataset/", "coordinator/dataset/", "node/dataset/"],
    "serve": ["common/serving/", "coordinator/serving/", "node/serving/"],
}
# How the code spells a workload's name where the plain name would match
# other words too: serve's identifiers and folder, not the verb ("to serve
# TLS"), "server", "reserve" or "observe".
NAME_PATTERNS = {
    "serve": r"\b(serving|kServe\w*|Serve[A-Z]\w*|serve_\w+)\b",
}
WORKLOAD_FOLDERS = sorted({f for fs in WORKLOADS.values() for f in fs})
# A workload's own files outside its folders: its codec in wire/ (both
# sides use it) and its messages in proto/ (issue 48 counts both as the
# workload's; datagen and dataload share dataset.proto).
WORKLOAD_OWN = {
    "datagen": ["wire/datagen_codec.", "proto/ckptbench/v1/dataset.proto"],
    "dataload": ["wire/dataload_codec.", "wire/dataload_report_codec.",
                 "proto/ckptbench/v1/dataset.proto"],
    "serve": ["wire/serve_codec.", "proto/ckptbench/v1/serving.proto"],
}
# Including one's own codec is the rule, not a use of the wire types.
OWN_CODEC_INCLUDE = re.compile(
    r'#include "wire/(%s)(_[a-z]+)?_codec\.h"' % "|".join(WORKLOADS))
# Beside the C++ sources: the build and the wire schema name workloads too.
NAMING_EXTRA = ["CMakeLists.txt", "proto"]


def product_files():
    for top in PRODUCT:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                if n.endswith((".cc", ".h")):
                    p = os.path.join(dirpath, n)
                    yield os.path.relpath(p, ROOT)


def blank(text):
    """Comments, string and char literals and preprocessor lines replaced by
    spaces, newlines kept (so line numbers hold)."""
    out, i, n = [], 0, len(text)
    keep = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(keep(text[i:j])); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(keep(text[i:j])); i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                j = n if end < 0 else end + len(m.group(1)) + 2
                out.append('""' + keep(text[i + 2:j])); i = j
            else:
                out.append(c); i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + keep(text[i + 1:j - 1]) + c if j - i >= 2 else keep(text[i:j]))
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n" or text[:i].rstrip(" \t").endswith("\n")):
            j = i
            while True:  # a directive with its continuation lines
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(keep(text[i:k])); i = k
        else:
            out.append(c); i += 1
    return "".join(out)


def blank_comments(text):
    """Comments replaced by spaces (strings kept: a name in a string is a
    name the code uses)."""
    code = blank(text)
    out = list(text)
    for i, (a, b) in enumerate(zip(text, code)):
        if a != b and not _in_string(code, i):
            out[i] = b
    return "".join(out)


def _in_string(code, i):
    # blank() keeps a literal's quotes and blanks its inside: position i
    # is inside a literal when the blanked line holds an odd number of
    # quotes before it.
    start = code.rfind("\n", 0, i) + 1
    return code.count('"', start, i) % 2 == 1


def naming_files():
    """Product sources, the CMake files and the .proto files."""
    yield from product_files()
    for extra in NAMING_EXTRA:
        p = os.path.join(ROOT, extra)
        if os.path.isfile(p):
            yield extra
        for dirpath, _, names in os.walk(p):
            for n in sorted(names):
                if n.endswith(".proto") or n == "CMakeLists.txt":
                    yield os.path.relpath(os.path.join(dirpath, n), ROOT)


# A line that tests which workload a run or a round is: compares a
# `workload` with anything, or anything with a workload's name constant
# (kCheckpointWorkload, ...), or names a Workload enum value.
WORKLOAD_TEST = re.compile(
    r"\bworkload\s*[!=]=|[!=]=\s*k\w+Workload\b|\bWorkload::k\w+")
# Where the workloads' names meet by design (issue 48: "outside the
# workload folders and the registry"): the registry matches a run's
# run.workload, a preparation's and an embedding's names with its entries.
WORKLOAD_REGISTRY = ("coordinator/workload_registry.",)


def workload_figures(show):
    """Per workload, the files outside its folders that name it; the lines
    outside every workload folder that test which workload a run or a
    round is (WORKLOAD_TEST: run.workload was the Workload enum); the
    workload folders' lines that use the wire types."""
    naming = {w: [] for w in WORKLOADS}
    enum_tests, wire_uses = [], []
    for rel in naming_files():
        text = open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace").read()
        code = blank_comments(text) if rel.endswith((".cc", ".h")) else \
            re.sub(r"//[^\n]*", "", text) if rel.endswith(".proto") else \
            re.sub(r"#[^\n]*", "", text)
        for w, folders in WORKLOADS.items():
            own = tuple(folders + WORKLOAD_OWN.get(w, []))
            pattern = NAME_PATTERNS.get(w)
            found = re.search(pattern, code) if pattern else \
                re.search(w, code, re.I)
            if not rel.startswith(own) and found:
                naming[w].append(rel)
        if not rel.endswith((".cc", ".h")):
            continue
        inside = rel.startswith(tuple(WORKLOAD_FOLDERS))
        registry = rel.startswith(WORKLOAD_REGISTRY)
        bare = blank(text).split("\n")
        for i, line in enumerate(text.split("\n"), 1):
            if not (inside or registry) and WORKLOAD_TEST.search(bare[i - 1]):
                enum_tests.append(f"{rel}:{i}: {line.strip()[:80]}")
            if inside and (re.search(r"\bv1::", bare[i - 1]) or
                           (re.match(r'#include "(wire|proto|ckptbench)/', line)
                            and not OWN_CODEC_INCLUDE.match(line))):
                wire_uses.append(f"{rel}:{i}: {line.strip()[:80]}")
    print("workload as a unit (files outside its own folders that name it, "
          "the build and the .proto files included):")
    for w, files in naming.items():
        own = ", ".join(WORKLOADS[w] + WORKLOAD_OWN.get(w, []))
        print(f"  {w}: {len(files)} (its own: {own})")
        for f in files[:show]:
            print(f"      {f}")
    print(f"lines testing a workload by name outside the workload folders and the registry: {len(enum_tests)}")
    by_file = collections.Counter(e.split(":")[0] for e in enum_tests)
    for f, c in by_file.most_common(show):
        print(f"  {c:4d}  {f}")
    print(f"wire types (v1::, wire/, proto/ includes) in the workload folders: {len(wire_uses)} lines "
          f"in {len({u.split(':')[0] for u in wire_uses})} files")
    for f, c in collections.Counter(u.split(":")[0] for u in wire_uses).most_common(show):
        print(f"  {c:4d}  {f}")
    figures = {f"files outside its folders naming {w}": len(files)
               for w, files in naming.items()}
    figures["lines testing a workload by name outside the workload folders and the registry"] = len(enum_tests)
    figures["wire type uses in the workload folders"] = len(wire_uses)
    return figures


LIMITS_BEGIN = "<!-- code-metrics limits -->"
LIMITS_END = "<!-- /code-metrics limits -->"


def check(figures, doc):
    """The figures against DOC's table of limits: the failures, as lines."""
    text = open(doc, encoding="utf-8").read()
    if LIMITS_BEGIN not in text or LIMITS_END not in text:
        return [f"{doc}: no table of limits between {LIMITS_BEGIN} and {LIMITS_END}"]
    table = text.split(LIMITS_BEGIN, 1)[1].split(LIMITS_END, 1)[0]
    limits = {}
    for row in table.splitlines():
        m = re.match(r"\|\s*([^|]+?)\s*\|\s*(\d+)\s*\|", row)
        if m:
            limits[m.group(1)] = int(m.group(2))
    failures = []
    for name in sorted(set(limits) - set(figures)):
        failures.append(f"{doc} limits '{name}', a figure this script does not measure")
    for name in sorted(set(figures) - set(limits)):
        failures.append(f"'{name}' ({figures[name]}) has no limit in {doc}")
    for name in sorted(set(figures) & set(limits)):
        if figures[name] > limits[name]:
            failures.append(f"'{name}' is {figures[name]}, past its limit of "
                            f"{limits[name]} in {doc}")
    return failures


def blocks(code):
    """(kind, name, first line, last line, depth) of every block."""
    stack, found, head, head_line = [], [], "", None
    line = 1
    for c in code:
        if c == "\n":
            line += 1
        if c == "{":
            h = " ".join(head.split())
            kind = "other"
            in_func = any(k == "func" for k, *_ in stack)
            if re.search(r"\bnamespace\b", h) and "(" not in h:
                kind = "ns"
            elif re.search(r"\b(class|struct|union|enum)\b", h) and "(" not in h.split("=")[0]:
                kind = "class"
            elif not in_func and ")" in h and not h.rstrip().endswith("=") and \
                    (h.split("(")[0].split() or [""])[-1] not in CONTROL and "=" not in h.split("(")[0]:
                kind = "func"
            m = re.search(r"([~\w:<>,\s]*?)\s*\(", h)
            name = ""
            if m:
                name = m.group(1).split()[-1] if m.group(1).split() else ""
            stack.append((kind, name, head_line or line, h))
            head, head_line = "", None
        elif c == "}":
            if stack:
                kind, name, first, h = stack.pop()
                found.append((kind, name, first, line, len(stack)))
                if kind == "other" and all(k == "ns" for k, *_ in stack) and \
                        re.match(r"[\w:<>,\s*&]+\s+\w+\s*=?\s*$", h) and \
                        not re.match(r"(extern|enum|namespace)\b", h):
                    # A variable with a braced initializer (T x{...};).
                    found.append(("stmt", h + "{};", first, line, len(stack)))
            head, head_line = "", None
        elif c == ";":
            if all(k == "ns" for k, *_ in stack):  # namespace scope
                found.append(("stmt", head + ";", head_line or line, line, len(stack)))
            head, head_line = "", None
        else:
            if not c.isspace() and head_line is None:
                head_line = line
            head += c
    return found


def main(argv):
    show, doc = 10, None
    args = list(argv)
    while args:
        if len(args) >= 2 and args[0] == "--list":
            show = int(args[1])
        elif len(args) >= 2 and args[0] == "--check":
            doc = args[1]
        else:
            sys.exit("usage: scripts/code-metrics.sh [--list N] [--check DOC]")
        args = args[2:]
    funcs, rooms, globals_, literal_cmp = [], collections.Counter(), [], collections.Counter()
    node_includes = []
    for rel in product_files():
        text = open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace").read()
        rooms[os.path.splitext(rel)[0]] += text.count("\n")
        code = blank(text)
        lines = text.split("\n")
        blocks_of = blocks(code)
        for kind, name, first, last, depth in blocks_of:
            if kind == "func":
                body = "\n".join(lines[first - 1:last])
                table = len(re.findall(r"\w+Key\(", body)) >= 10
                funcs.append((last - first + 1, name, f"{rel}:{first}", table))
            elif kind == "stmt":
                s = " ".join(name.split())
                if re.match(r"(using|typedef|class|struct|enum|template|extern|friend|static_assert|namespace)\b", s):
                    continue
                if re.search(r"\b(const|constexpr)\b", s.split("=")[0]):
                    continue
                before_eq = s.split("=")[0]
                if "(" in before_eq and "{" not in before_eq:
                    continue  # a function declaration
                if not re.match(r"[A-Za-z_:]", s):
                    continue  # the tail of a statement a brace cut (T{1} << 20)
                if s.startswith("static ") or not re.search(r"\w", s):
                    continue  # a static function's declaration, or nothing
                globals_.append(f"{rel}:{first}: {s[:90]}")
        if True:
            # Function-local statics that are not constants.
            for m in re.finditer(r"\bstatic\s+(?!const\b|constexpr\b|inline\b)([^;(){}=]*?)\s*(=|\{|;)", code):
                decl = m.group(1).strip()
                if not decl:
                    continue
                ln = code.count("\n", 0, m.start()) + 1
                if any(k == "func" and f <= ln <= l for k, _, f, l, _ in blocks_of):
                    globals_.append(f"{rel}:{ln}: static {' '.join(decl.split())[:80]}")
        if rel.startswith("coordinator/"):
            for i, l in enumerate(lines, 1):
                if l.startswith('#include "node/'):
                    node_includes.append(f"{rel}:{i}: {l}")
        if rel.endswith(".cc") and rel not in EDGES:
            literal_cmp[rel] += len(re.findall(r'(==|!=)\s*"|"\s*(==|!=)', text))

    funcs.sort(key=lambda f: -f[0])
    code_funcs = [f for f in funcs if not f[3]]
    print("ckptbench code metrics (product code: %s)" % ", ".join(PRODUCT))
    longest = code_funcs[0] if code_funcs else (0, "-", "-", False)
    print(f"longest function: {longest[0]} lines, {longest[1]} ({longest[2]}); "
          f"key tables left out: " + ", ".join(f"{n} {l}" for l, n, _, t in funcs if t))
    over100 = [f for f in code_funcs if f[0] > 100]
    over80 = [f for f in code_funcs if f[0] > 80]
    print(f"functions over 100 lines: {len(over100)}; over 80: {len(over80)}")
    for l, n, w, _ in code_funcs[:show]:
        print(f"  {l:4d}  {n}  {w}")
    big = sorted(((v, k) for k, v in rooms.items() if v > 600), reverse=True)
    print(f"rooms over 600 lines (.h + .cc): {len(big)}")
    for v, k in big:
        print(f"  {v:5d}  {k}")
    print(f'#include "node/ lines in coordinator/: {len(node_includes)}')
    for x in node_includes[:show]:
        print(f"  {x}")
    total = sum(literal_cmp.values())
    print(f"string-literal comparisons outside the config/JSON edges: {total}")
    for f, c in literal_cmp.most_common(show):
        if c:
            print(f"  {c:4d}  {f}")
    uniq = sorted(set(globals_))
    other = [g for g in uniq if g.split(":")[0] not in DELIBERATE_STATE]
    print(f"process-global mutable state in product code: {len(uniq)} "
          f"({len(uniq) - len(other)} deliberate, named in docs/architecture.md; "
          f"others: {len(other)})")
    for g in (other + [g for g in uniq if g not in other])[:show]:
        print(f"  {g}")
    # Every instantiation of the suite's cases, in whichever test binary.
    names = []
    for folder, _, files in sorted(os.walk(os.path.join(ROOT, "tests"))):
        for f in sorted(files):
            if not f.endswith(".cc"):
                continue
            text = open(os.path.join(folder, f)).read()
            for inst in re.findall(r"INSTANTIATE_TEST_SUITE_P\(\s*\w+,\s*StorageConformance,(.*?)ConformanceName\)",
                                   text, re.S):
                names += re.findall(r'Backend\{\s*"([^"]+)"', inst)
    print("storage conformance suite backends: " + (", ".join(names) or "none found"))
    figures = workload_figures(show)
    figures["longest product function"] = longest[0]
    figures["rooms over 600 lines"] = len(big)
    figures["node/ includes in coordinator/"] = len(node_includes)
    figures["process-global mutable state not deliberate"] = len(other)
    if doc is not None:
        failures = check(figures, doc)
        for f in failures:
            print(f"code-metrics check FAILED: {f}")
        if failures:
            sys.exit(1)
        print(f"code-metrics check: every figure within its limit in {doc}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    main(sys.argv[1:])
