#!/usr/bin/env python3
"""check_layers.py — the runtime's layers, as runtime/base.h draws them, are
true: no file includes a header of a layer above its own or calls a function
defined there; a backend's headers and functions are used by its own files
and api/backend.c alone; and a vendor's header is included by its backend
alone.

Usage: check_layers.py [--planted DIR] RUNTIME_DIR NM OBJECT... (or @FILE)
  --planted DIR  a tree laid out as runtime/ whose sources are read too, as
               if they were there (tests/layers: planted violations)
  RUNTIME_DIR  runtime/ of the source tree (base.h, the folders' headers)
  NM           the nm of the toolchain
  OBJECT       the runtime's object files, as CMake builds them
               (.../<folder>/<file>.c.o): the calls are read from them.
Prints each violation as `file: what` and exits 1 if there is any. Prints
too, as information only, each circle of calls among the files of one
folder (`circle: core/a.c core/b.c`): files that each reach the others
through calls, a knot a reader cannot take apart.

Layers are the folders base.h lists, top to bottom; the files at the top of
runtime/ (base.h's own: errors, messages, regions, settings) lie below them
all. A file may use its own folder and any folder below it. A folder of
sources that base.h does not list stops the check (it would go unchecked).

Backends are derived from the tree. comm/ and mem/ hold the backends of the
two tables (transports, memory spaces) beside the files they share. There,
a file belongs to the backend named by the first word of its name (words end
at `_` or `.`) once a leading `space_` is dropped: comm/mpi.c,
comm/mpi_watchdog.c and comm/mpi_comm.h are transport mpi; mem/space_emul.c,
mem/space_emul_<any>.c and mem/emul_<any>.c are space emul; mem/space_gpu.c
is space gpu. A file whose word is its table's own (comm/comm*.c,
mem/space.[ch]) is shared, no backend's. A backend's headers and functions
are used by its own files and by api/backend.c, the one file that registers
the backends built: by no other file, in its folder or out of it.

Vendor headers (VENDOR: MPI's, CUDA's, HIP's) are included, in <> or "", by
the files of their backend only.
"""
import os
import re
import subprocess
import sys

BASE = "(base)"
# The folders that hold backends: folder -> what a backend is there, and the
# word of the files the folder's backends share.
TABLES = {"comm": ("transport", "comm"), "mem": ("space", "space")}
# The one file that registers the backends built.
REGISTRY = ("api", "backend.c")
# Vendor headers: the backend that alone may include them -> their names.
VENDOR = {
    ("comm", "mpi"): re.compile(r"mpi[\w-]*\.h"),
    ("mem", "gpu"): re.compile(
        r"(cuda|cublas|curand|cufft|cusparse|cusolver|nvrtc|nccl)\w*\.h"
        r"|(hip|hipblas|rocblas|rccl)/.+"),
}
# The C library's functions that libdag defines for the whole process
# (api/free_check.c): every layer calls them as the C library's.
LIBC = {"free", "realloc"}


def layers_of(runtime):
    """The folders base.h lists, top first; every folder of sources must be
    there."""
    text = open(os.path.join(runtime, "base.h")).read()
    order = re.findall(r"^ \*   (\w+)/ ", text, re.M)
    if not order:
        sys.exit("check_layers: no layers found in base.h's opening comment")
    for folder in sorted(os.listdir(runtime)):
        where = os.path.join(runtime, folder)
        if folder not in order and os.path.isdir(where) and any(
                name.endswith((".c", ".h")) for name in os.listdir(where)):
            sys.exit(f"check_layers: runtime/{folder}/ is not a layer of "
                     "base.h's opening comment")
    return order


def rank(order, folder):
    """Larger is lower; the base lies below every layer."""
    return len(order) if folder == BASE else order.index(folder)


def backend_of(folder, name):
    """The backend a file belongs to, (folder, name), or None if shared."""
    if folder not in TABLES:
        return None
    word = re.split(r"[_.]", re.sub(r"^space_", "", name))[0]
    return None if word == TABLES[folder][1] else (folder, word)


def backend_name(backend):
    return f"{TABLES[backend[0]][0]} {backend[1]}"


def show(where):
    """A (folder, file name) as a runtime path, such as comm/mpi.c."""
    return where[1] if where[0] == BASE else f"{where[0]}/{where[1]}"


def place(path):
    """(folder, file name) of a runtime path such as comm/mpi.c."""
    parts = path.split("/")
    return (parts[0], parts[1]) if len(parts) == 2 else (BASE, parts[0])


def why_not(order, user, used):
    """Why file `user` may not use file `used` (each a (folder, name)), or
    None if it may."""
    if rank(order, used[0]) < rank(order, user[0]):
        return "a layer above"
    owner = backend_of(*used)
    if owner and owner != backend_of(*user) and user != REGISTRY:
        return f"of {backend_name(owner)}"
    return None


def sources(root, order):
    """(folder, name, path) of the sources of a tree laid out as runtime/."""
    for folder in order + [BASE]:
        where = root if folder == BASE else os.path.join(root, folder)
        if not os.path.isdir(where):
            continue
        for name in sorted(os.listdir(where)):
            if name.endswith((".c", ".h")):
                yield folder, name, os.path.join(where, name)


def check_includes(roots, order, say):
    for root in roots:
        for folder, name, path in sources(root, order):
            user = (folder, name)
            for line in open(path):
                m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
                if not m:
                    continue
                header = m.group(2)
                shown = f"<{header}>" if m.group(1) == "<" else f'"{header}"'
                for owner, pattern in VENDOR.items():
                    if pattern.fullmatch(header) and \
                            backend_of(*user) != owner:
                        say(show(user), f"includes {shown}, a header of "
                            f"{backend_name(owner)}")
                if m.group(1) == "<" or header == "dag.h":
                    continue
                used = place(header)
                if used[0] != BASE and used[0] not in order:
                    continue  # not a runtime header
                why = why_not(order, user, used)
                if why:
                    say(show(user), f"includes {shown}, {why}")


def symbols(nm, obj):
    """The symbols an object defines (name -> nm's type) and uses."""
    out = subprocess.run([nm, obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = {}, set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRCGSV":
            defined[f[2]] = f[1]
    return defined, undefined


def object_place(obj):
    m = re.search(r"\.dir/(?:\./)?(.+)\.o$", obj)
    if not m:
        sys.exit(f"check_layers: {obj}: not a CMake object file")
    return place(m.group(1))


def check_calls(nm, objects, order, say):
    """Checks each use of a symbol; returns the calls between files of one
    folder: file -> the files it uses."""
    defined_in = {}
    uses = []
    for obj in objects:
        where = object_place(obj)
        defined, undefined = symbols(nm, obj)
        for s, kind in defined.items():
            defined_in.setdefault(s, (where, kind))
        uses.append((where, undefined))
    within = {}
    for user, undefined in uses:
        within.setdefault(user, set())
        for s in sorted(undefined - LIBC):
            if s not in defined_in:
                continue
            used, kind = defined_in[s]
            why = why_not(order, user, used)
            if why:
                verb = "calls" if kind == "T" else "uses"
                say(show(user), f"{verb} {s} ({show(used)}), {why}")
            elif used[0] == user[0] and used != user:
                within[user].add(used)
    return within


def circles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def main():
    args = sys.argv[1:]
    roots = []
    while len(args) >= 2 and args[0] == "--planted":
        roots.append(args[1])
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    runtime, nm, objects = args[0], args[1], []
    for arg in args[2:]:
        if arg.startswith("@"):
            objects += [line for line in open(arg[1:]).read().split() if line]
        else:
            objects.append(arg)
    order = layers_of(runtime)
    found = []

    def say(file, what):
        found.append(f"{file}: {what}")

    check_includes([runtime] + roots, order, say)
    within = check_calls(nm, objects, order, say)
    knots = circles(within)
    for line in found:
        print(line)
    for knot in knots:
        print("circle: " + " ".join(show(f) for f in knot))
    backends = sorted({backend_of(folder, name)
                       for folder, name, _ in sources(runtime, order)} -
                      {None})
    print(f"check_layers: {' > '.join(order)} > base; backends: "
          f"{', '.join(f'{f}/{b}' for f, b in backends)}: "
          f"{len(objects)} objects, {len(found)} violations, "
          f"{len(knots)} circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
