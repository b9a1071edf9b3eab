"""bench/runner.py: the library every benchmark runner imports.

A runner is a Python script, bench/NAME/run, that CMake copies next to the
programs it runs as run-NAME (bench/suite/run runs from the source tree).
It imports this module from the folder above its own:

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import runner

What the runners do alike is here once:
- the peers at their best: OpenMP's threads bound and its priorities
  counted, StarPU quiet on the CPUs, the variants of a peer that its
  maintainers would try (the best counts), and the line that says what ran;
- running a program: its environment, a time limit, its process group ended
  on a timeout or Ctrl-C, a failure said with the program's own words and
  counted;
- the order of the runs, turned from one round to the next, and medians;
- the records, JSON Lines, appended to --json at the end;
- reading what the programs print (key=value words) and printing tables,
  each cell with its ratio.
"""
import argparse
import atexit
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# ------------------------------------------------------------ the peers

# OpenMP at its best: threads bound to cores, as dag binds its workers
# (unbound, a runtime's threads float and lose caches), and task priorities
# counted (OMP_MAX_TASK_PRIORITY is 0 by default, which ignores every
# `priority` clause). A setting in the environment wins; OMP_WAIT_POLICY
# stays the runtime's default unless set there or by a variant.
OPENMP_BEST = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores",
               "OMP_MAX_TASK_PRIORITY": "1000"}

# StarPU quiet and on the CPUs only.
STARPU_CPUS = {"STARPU_SILENT": "1", "STARPU_NCUDA": "0",
               "STARPU_NOPENCL": "0"}

# The schedulers a StarPU peer runs with, each a variant of its own.
STARPU_SCHEDULERS = ("dmdas", "dmda", "lws", "ws", "eager", "prio")


def peer_env(settings=None, openmp=True):
    """The environment a run gets: this one, with the peers at their best
    (OPENMP_BEST unless openmp is false), Open MPI allowed to run as root
    (it refuses without these, and CI's machines run as root), and settings
    ({VAR: value}) on top."""
    env = {**(OPENMP_BEST if openmp else {}), **os.environ, **STARPU_CPUS}
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update({k: str(v) for k, v in (settings or {}).items()})
    return env


def cores():
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


def threads_env(n):
    """The settings that give every runtime n threads that run tasks: dag's
    workers, OpenMP's team, StarPU's CPU workers."""
    return {"DAG_NUM_THREADS": n, "OMP_NUM_THREADS": n, "STARPU_NCPU": n}


def variants(runtime):
    """The variants a runner tries of a peer, the best of which counts; a
    variant's name (starpu_lws) stands for itself alone."""
    if runtime in ("gomp", "libomp"):
        return [runtime, runtime + "_active"]
    if runtime == "starpu":
        return ([f"starpu_{s}" for s in STARPU_SCHEDULERS]
                + ["starpu_dmdas_main", "starpu_lws_main"])
    if runtime == "starpumpi":
        return [f"starpumpi_{s}" for s in STARPU_SCHEDULERS]
    return [runtime]


def variant(name):
    """(runtime, settings) of a variant's name:
      starpu_SCHED, starpumpi_SCHED   StarPU with scheduler SCHED
      starpu_SCHED_main               ... and a core of its own for the thread
                                      that submits, one worker fewer (as Task
                                      Bench runs StarPU)
      gomp_active, libomp_active      OpenMP with OMP_WAIT_POLICY=active
    Any other name is a runtime that runs as itself."""
    base, _, rest = name.partition("_")
    if base in ("gomp", "libomp") and rest == "active":
        return base, {"OMP_WAIT_POLICY": "active"}
    if base == "starpu" and rest.endswith("_main"):
        return base, {"STARPU_SCHED": rest[:-len("_main")],
                      "STARPU_MAIN_THREAD_BIND": "1"}
    if base in ("starpu", "starpumpi") and rest:
        return base, {"STARPU_SCHED": rest}
    return name, {}


def built(runtimes, program, note, what=""):
    """The variants of runtimes whose program (program(runtime); None where
    there is none to run) is built, in order; the others said by note, after
    what ("gemm on ")."""
    found = []
    for name in (v for rt in runtimes for v in variants(rt)):
        path = program(variant(name)[0])
        if path and os.access(path, os.X_OK):
            found.append(name)
        elif path:
            note(f"{what}{name}: {path} not built, skipped")
    return found


def peers_config(names=()):
    """The peers' settings, one line for the foot of a table, each named
    variant's own settings after."""
    env = peer_env()
    line = "peers: " + " ".join(
        f"{k}={env.get(k, 'default')}" for k in
        ("OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY",
         "OMP_MAX_TASK_PRIORITY"))
    if "STARPU_SCHED" in env:
        line += f" STARPU_SCHED={env['STARPU_SCHED']}"
    for name in names:
        settings = variant(name)[1]
        if settings:
            line += f"; {name}: " + " ".join(
                f"{k}={v}" for k, v in settings.items())
    return line


# ------------------------------------------------------ running a program

def stop(proc):
    """Ends the process group a run started (a launcher and its ranks)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def execute(argv, env, timeout=None):
    """(exit status, or None on a timeout; stdout; stderr) of one run; a
    program that cannot start exits 127, as in the shell. The program is
    started by timeout(1), which also keeps its time limit (0: none): a
    process's peak RSS (ru_maxrss) starts at that of the process that
    forked it, and Python's 16 MiB would hide what a program measures of
    its own (bench/overhead, bench/nested)."""
    limit = ["timeout", "-k", "5", str(timeout or 0)]
    proc = subprocess.Popen(limit + [str(a) for a in argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate()
    except BaseException:  # Ctrl-C, SIGTERM: leave nothing running
        stop(proc)
        raise
    # 124: timeout(1) ended it; 137 or SIGKILL: it had to kill it.
    timed_out = timeout and proc.returncode in (124, 137, -signal.SIGKILL)
    return None if timed_out else proc.returncode, out, err


def own_words(text):
    """The lines of a run's output, less Open MPI's boxed messages (between
    lines of dashes) and blank lines."""
    said, boxed = [], False
    for line in text.splitlines():
        if line.startswith("-----"):
            boxed = not boxed
        elif not boxed and line.strip():
            said.append(line)
    return said


def launcher(ranks, override=None):
    """The words that start a program on ranks MPI ranks: override (words),
    or mpiexec (MPIEXEC), every rank unbound so that dag shares the node's
    cores among them (docs/mpi.md); None where there is no launcher."""
    found = override or os.environ.get("MPIEXEC", "").split() or [
        shutil.which("mpiexec") or shutil.which("mpirun")]
    if not found[0]:
        return None
    if override:
        return found + ["-n", str(ranks)]
    return found + ["-n", str(ranks), "--oversubscribe", "--bind-to", "none"]


class Runner:
    """A runner's runs: failures said and counted, each record appended to
    --json as it comes (an interrupted run keeps what ran), a temporary
    folder removed at the end. With total, the runs are counted on stderr,
    a line each (start)."""

    def __init__(self, name, json_path=None, total=0):
        self.name = name
        self.json = json_path
        self.records = []
        self.failed = 0
        self.total, self.count = total, 0
        self.tmp = Path(tempfile.mkdtemp(prefix=f"{name}-"))
        atexit.register(shutil.rmtree, self.tmp, ignore_errors=True)
        if json_path:  # a bad path said now, not after the whole run
            Path(json_path).parent.mkdir(parents=True, exist_ok=True)
            Path(json_path).touch()

    def note(self, text):
        print(f"{self.name}: {text}", file=sys.stderr, flush=True)

    def start(self, what):
        """Begins a counted run's line, "[3/40] what ... ", which its
        outcome ends."""
        self.count += 1
        print(f"[{self.count}/{self.total}] {what} ... ", end="",
              file=sys.stderr, flush=True)

    def fail(self, what, text=""):
        """A run that failed, said on stderr (ending a counted run's line)
        with the last of what it printed, and counted."""
        if self.total:
            print(f"FAILED: {what}", file=sys.stderr)
        else:
            self.note(f"{what} FAILED")
        for line in own_words(text)[-8:]:
            print(f"    {line}", file=sys.stderr)
        self.failed += 1

    def run(self, what, argv, settings=None, timeout=None, openmp=True,
            stderr=False):
        """Runs argv in peer_env(settings); its stdout (and stderr after it,
        where stderr is true), or None where it failed (exit status,
        timeout), which is said and counted."""
        status, out, err = execute(argv, peer_env(settings, openmp), timeout)
        if status == 0:
            return out + err if stderr else out
        why = "timed out" if status is None else f"exit {status}"
        self.fail(f"{what} ({why})", out + err)
        return None

    def run_records(self, what, argv, settings=None):
        """(stdout or None, records) of a program that appends its records
        to the file after its --json, which this adds to argv."""
        one = self.tmp / "one.jsonl"
        one.unlink(missing_ok=True)
        out = self.run(what, [*argv, "--json", one], settings)
        return out, read_records(one, self.note) if one.exists() else []

    def record(self, **fields):
        """One record: kept, appended to --json's file, returned."""
        self.records.append(fields)
        if self.json:
            with open(self.json, "a") as f:
                f.write(json.dumps(fields, separators=(",", ":")) + "\n")
        return fields

    def finish(self, status=0):
        """The exit status, the failed runs counted: 1 where a run failed,
        else status."""
        if self.failed:
            self.note(f"{self.failed} run(s) FAILED (see above)")
            return 1
        return status


def main(body):
    """Runs body() and exits with its status: 2 for bad arguments
    (argparse's own), 130 on Ctrl-C, 143 on SIGTERM (ctest's timeout),
    the running program ended either way and the temporary folder
    removed."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(body())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


# ------------------------------------------------ the order of the runs

def turned(k, items):
    """items turned left by k places, so that from one round to the next
    each runs in another place of the order and a drift of the machine
    (these shared machines drift by half over seconds) touches them all
    alike."""
    items = list(items)
    if not items:
        return items
    k %= len(items)
    return items[k:] + items[:k]


def median(values):
    """The median; of an even count, the lower middle (a value measured)."""
    return statistics.median_low(values)


# ----------------------------------------------------- reading and tables

def typed(text):
    """A printed value as int or float where it is a finite one."""
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        return value if math.isfinite(value) else text
    return text


def fields(line, keep_text=()):
    """The key=value words of a line, values typed (but keys in keep_text,
    compared as printed)."""
    return {k: v if k in keep_text else typed(v) for k, v in
            (w.split("=", 1) for w in line.split() if "=" in w)}


def lines_of(out, word, keep_text=()):
    """The fields of each line of out whose first word is word."""
    return [fields(line, keep_text) for line in out.splitlines()
            if line.split()[:1] == [word]]


def read_records(path, say=print):
    """The records (dicts) of a JSON Lines file; other lines said and left
    out. An unreadable file ends the run with status 2."""
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        say(str(e))
        sys.exit(2)
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if isinstance(record, dict):
            records.append(record)
        else:
            say(f"{path}:{number}: not a JSON object, ignored")
    return records


def cell(value, ref=None, fmt="{:.2f}"):
    """A table's cell: value with fmt and, where ref > 0, its ratio to ref:
    "12.34 (1.05x)"; "-" where there is no value."""
    if value is None:
        return "-"
    text = fmt.format(value)
    return f"{text} ({value / ref:.2f}x)" if ref else text


def print_table(header, rows):
    """Columns as wide as their widest cell, the first left-aligned."""
    rows = [[str(c) for c in row] for row in [header] + rows]
    widths = [max(len(r[i]) for r in rows if i < len(r))
              for i in range(len(header))]
    for row in rows:
        print(" ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths)))
              .rstrip())


def columns(names, records):
    """A table's columns: the runtimes of names (a runner's --runtimes, a
    variant standing for its runtime) that have records, each once, in
    order."""
    seen = {r.get("runtime") for r in records}
    return [rt for rt in dict.fromkeys(variant(n)[0] for n in names)
            if rt in seen]


def best_variants(records, key, value="value", lower=False):
    """key(record) -> the record of the variant that did best (the largest
    value, or the smallest where lower), of records with that key."""
    best = {}
    for r in records:
        k = key(r)
        if k not in best or (r[value] < best[k][value] if lower
                             else r[value] > best[k][value]):
            best[k] = r
    return best


def say_variants(records, best, runtimes):
    """For each runtime that ran as several variants, the cells (of best)
    each variant won; of one that ran as one, its "config" where it said."""
    for rt in runtimes:
        tried = list(dict.fromkeys(r["variant"] for r in records
                                   if r.get("runtime") == rt
                                   and "variant" in r))
        if len(tried) > 1:
            wins = [sum(1 for b in best.values() if b.get("variant") == v)
                    for v in tried]
            print(f"{rt}: the best of its variants in each cell; cells won: "
                  + " ".join(f"{v} {w}" for v, w in zip(tried, wins)))
        else:
            config = [r["config"] for r in records
                      if r.get("runtime") == rt and r.get("config")]
            if config:
                print(f"{rt}: {config[-1]}")


def words(text):
    """An option's list: words split at spaces or commas."""
    return [w for w in re.split(r"[,\s]+", text) if w]


def numbers(text):
    """An option's list of whole numbers, each at least 1."""
    try:
        values = [int(w) for w in words(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not whole numbers: {text!r}")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"need numbers >= 1: {text!r}")
    return values


def positive(text):
    """An option's whole number, at least 1."""
    values = numbers(text)
    if len(values) != 1:
        raise argparse.ArgumentTypeError(f"not one number: {text!r}")
    return values[0]


def parser(prog, doc):
    """An argument parser whose help is the runner's docstring, with the
    option every runner has: --json FILE."""
    p = argparse.ArgumentParser(
        prog=prog, description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", metavar="FILE", type=Path,
                   help="append the records (JSON Lines) to FILE")
    return p


def parse(p, **short):
    """p's options. short names a flag (quick=...) and the values it
    gives the options that the command line leaves out: an option named
    beside --quick wins, whatever the order."""
    opts = p.parse_args()
    for flag, values in short.items():
        if getattr(opts, flag):
            p.set_defaults(**values)
            opts = p.parse_args()
    return opts
