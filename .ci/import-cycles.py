#!/usr/bin/env python3
"""Lists circles of `use` imports between the files of each library crate; exits 1 if any.

A file imports another when one of its `use` paths (`crate::…`, `super::…`, `self::…`), or
a path written in its code (`crate::output::sent_in_pipe(i)`), names that file's module or
an item defined there. An item a module only re-exports
(`pub use`) is followed to the module that defines it, so that importing `crate::Thing`
from lib.rs's re-exports is not an import of lib.rs. A parent's `mod child;` is not an
import. Usage: import-cycles.py CRATE_DIR...
"""
import os
import re
import sys


def module_files(src):
    """Module path (tuple) -> file, for every .rs file under src."""
    files = {}
    for root, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] in ("lib", "main", "mod"):
                rel = rel[:-1]
            if rel and rel[0] == "bin":
                continue
            files[tuple(rel)] = path
    return files


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def use_trees(text):
    """The `use` declarations of a file (without `use` and `;`), with whether each is pub
    and the inline modules (`mod tests { … }`) it sits in, outermost first."""
    inline = [(m.start(), m.end(), m.group(1)) for m in re.finditer(r"\bmod\s+(\w+)\s*\{", text)]
    for m in re.finditer(r"(^|\n)\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
        yield bool(m.group(2)), re.sub(r"\s+", "", m.group(3)), enclosing(text, inline, m.start())


def inline_paths(text):
    """Paths written in code (`crate::output::pipe_mode::sent_in_pipe(i)`), outside `use`
    declarations, with the inline modules they sit in."""
    inline = [(m.start(), m.end(), m.group(1)) for m in re.finditer(r"\bmod\s+(\w+)\s*\{", text)]
    uses = [m.span() for m in re.finditer(r"(^|\n)\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text)]
    for m in re.finditer(r"(?<![\w:])((?:crate|super|self)(?:::(?:super|[a-z_][a-z0-9_]*))*::\w+)", text):
        if any(a <= m.start() < b for a, b in uses):
            continue
        yield m.group(1), enclosing(text, inline, m.start())


def enclosing(text, inline, pos):
    """The names of the inline modules whose braces contain pos."""
    names = []
    for start, end, name in inline:
        if end > pos:
            break
        depth = 1
        for ch in text[end:pos]:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth == 0:
                break
        if depth > 0:
            names.append(name)
    return names


def expand(tree):
    """`a::{b,c::{d,e}}` -> ['a::b', 'a::c::d', 'a::c::e'] (renames and globs kept)."""
    depth = 0
    for i, ch in enumerate(tree):
        if ch == "{" and depth == 0:
            prefix = tree[:i]
            inner = tree[i + 1 : tree.rindex("}")]
            parts, level, start = [], 0, 0
            for j, c in enumerate(inner):
                if c == "{":
                    level += 1
                elif c == "}":
                    level -= 1
                elif c == "," and level == 0:
                    parts.append(inner[start:j])
                    start = j + 1
            parts.append(inner[start:])
            out = []
            for p in parts:
                if p:
                    out += expand(prefix + p)
            return out
    return [tree]


def absolute(path, module):
    """A use path as a path from the crate root, or None for another crate."""
    segs = path.split("as")[0].split("::") if "::" in path else [path]
    segs = [s for s in segs if s]
    if not segs:
        return None
    if segs[0] == "crate":
        return segs[1:]
    base = list(module)
    if segs[0] == "self":
        return base + segs[1:]
    if segs[0] == "super":
        while segs and segs[0] == "super":
            base = base[:-1]
            segs = segs[1:]
        return base + segs
    return None


def main(crates):
    found = False
    for crate in crates:
        src = os.path.join(crate, "src")
        files = module_files(src)
        uses = {}
        reexports = {}  # module -> {name: absolute path}
        for module, path in files.items():
            text = strip_comments(open(path, encoding="utf-8").read())
            uses[module] = []
            for public, tree, inner in use_trees(text):
                for p in expand(tree):
                    # Paths inside an inline module are relative to it; what they name in
                    # it is in this file.
                    target = absolute(p.split(" as ")[0], module + tuple(inner))
                    if target is None:
                        continue
                    uses[module].append(target)
                    if public:
                        name = p.split("as")[-1].split("::")[-1] if "as" in p else target[-1]
                        reexports.setdefault(module, {})[name] = target
            for path, inner in inline_paths(text):
                target = absolute(path, module + tuple(inner))
                if target is not None:
                    uses[module].append(target)

        def resolve(target, seen=()):
            """The file module a crate path lands in."""
            for cut in range(len(target), -1, -1):
                mod = tuple(target[:cut])
                if mod in files:
                    rest = target[cut:]
                    if rest and rest[0] in reexports.get(mod, {}) and mod not in seen:
                        return resolve(reexports[mod][rest[0]] + rest[1:], seen + (mod,))
                    return mod
            return None

        graph = {m: set() for m in files}
        for module, targets in uses.items():
            for t in targets:
                r = resolve(t)
                if r is not None and r != module and r != module[: len(r)]:
                    graph[module].add(r)
                elif r is not None and r != module and len(r) < len(module):
                    # An ancestor's own item (not a re-export): an import of the ancestor.
                    graph[module].add(r)

        # Strongly connected components (Tarjan).
        index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in graph[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(comp)

        sys.setrecursionlimit(10000)
        for v in sorted(graph):
            if v not in index:
                visit(v)
        for comp in comps:
            found = True
            names = sorted(os.path.relpath(files[m]) for m in comp)
            print(f"{crate}: import circle among {', '.join(names)}")
            members = set(comp)
            for m in sorted(comp):
                for t in sorted(graph[m] & members):
                    print(f"    {os.path.relpath(files[m])} -> {os.path.relpath(files[t])}")
    if not found:
        print(f"no import circles in {', '.join(crates)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
