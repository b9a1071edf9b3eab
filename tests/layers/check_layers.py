#!/usr/bin/env python3
"""check_layers.py — the runtime's layers, as runtime/base.h draws them, are
true: no file includes a header of a layer above its own or calls a function
defined there, and no transport or memory space calls another one.

Usage: check_layers.py RUNTIME_DIR NM OBJECT... (or @FILE: one per line)
  RUNTIME_DIR  runtime/ of the source tree (base.h, the folders' headers)
  NM           the nm of the toolchain
  OBJECT       the runtime's object files, as CMake builds them
               (.../<folder>/<file>.c.o): the calls are read from them.
Prints each violation as `file: what` and exits 1 if there is any.

Layers are the folders base.h lists, top to bottom; the files at the top of
runtime/ (base.h's own: errors, messages, regions, settings) lie below them
all. A file may use its own folder and any folder below it. Within comm/ and
mem/, the peers below (transports, spaces) may use their folder's shared
files but not each other.
"""
import os
import re
import subprocess
import sys

# Peers of one folder that must not use each other: name -> its files.
PEERS = {
    "comm": {"mpi": {"mpi.c", "mpi_watchdog.c"}, "simulate": {"simulate.c"}},
    "mem": {"emul": {"space_emul.c", "emul_queues.c", "emul_faults.c",
                     "emul_model.c"},
            "gpu": {"space_gpu.c"}},
}
BASE = "(base)"
# The C library's functions that libdag defines for the whole process
# (api/free_check.c): every layer calls them as the C library's.
LIBC = {"free", "realloc"}


def layers_of(runtime):
    """The folders base.h lists, top first."""
    text = open(os.path.join(runtime, "base.h")).read()
    order = re.findall(r"^ \*   (\w+)/ ", text, re.M)
    if not order:
        sys.exit("check_layers: no layers found in base.h's opening comment")
    return order


def rank(order, folder):
    """Larger is lower; the base lies below every layer."""
    return len(order) if folder == BASE else order.index(folder)


def peer_of(folder, name):
    for peer, files in PEERS.get(folder, {}).items():
        if name in files:
            return peer
    return None


def place(path):
    """(folder, file name) of a runtime path such as comm/mpi.c."""
    parts = path.split("/")
    return (parts[0], parts[1]) if len(parts) == 2 else (BASE, parts[0])


def allowed(order, user, used):
    """Whether file `user` may use file `used` (each a (folder, name))."""
    if rank(order, used[0]) < rank(order, user[0]):
        return False  # upward
    if used[0] == user[0]:
        a, b = peer_of(*user), peer_of(*used)
        return not (a and b and a != b)
    return True


def check_includes(runtime, order, say):
    for folder in order + [BASE]:
        where = runtime if folder == BASE else os.path.join(runtime, folder)
        for name in sorted(os.listdir(where)):
            if not name.endswith((".c", ".h")):
                continue
            user = (folder, name)
            for line in open(os.path.join(where, name)):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m or m.group(1) == "dag.h":
                    continue
                used = place(m.group(1))
                if used[0] != BASE and used[0] not in order:
                    continue  # not a runtime header
                if not allowed(order, user, used):
                    say(f"{folder}/{name}" if folder != BASE else name,
                        f'includes "{m.group(1)}"')


def symbols(nm, obj):
    out = subprocess.run([nm, obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRCGSV" + "tdbrgsv" and \
                f[1].isupper():
            defined.add(f[2])
    return defined, undefined


def object_place(obj):
    m = re.search(r"\.dir/(?:\./)?(.+)\.o$", obj)
    if not m:
        sys.exit(f"check_layers: {obj}: not a CMake object file")
    return place(m.group(1))


def check_calls(nm, objects, order, say):
    defined_in = {}
    uses = []
    for obj in objects:
        where = object_place(obj)
        defined, undefined = symbols(nm, obj)
        for s in defined:
            defined_in.setdefault(s, where)
        uses.append((where, undefined))
    for user, undefined in uses:
        for s in sorted(undefined - LIBC):
            used = defined_in.get(s)
            if used and not allowed(order, user, used):
                name = user[1] if user[0] == BASE else f"{user[0]}/{user[1]}"
                to = used[1] if used[0] == BASE else f"{used[0]}/{used[1]}"
                say(name, f"calls {s} ({to})")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runtime, nm, objects = sys.argv[1], sys.argv[2], []
    for arg in sys.argv[3:]:
        if arg.startswith("@"):
            objects += [line for line in open(arg[1:]).read().split() if line]
        else:
            objects.append(arg)
    order = layers_of(runtime)
    found = []

    def say(file, what):
        found.append(f"{file}: {what}")

    check_includes(runtime, order, say)
    check_calls(nm, objects, order, say)
    for line in found:
        print(line)
    print(f"check_layers: {' > '.join(order)} > base: "
          f"{len(objects)} objects, {len(found)} violations")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
