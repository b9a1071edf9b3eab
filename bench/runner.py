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
  counted, the runs counted on progress lines where a runner wants them;
- the order of the runs, turned from one round to the next, and medians;
- the records, JSON Lines, appended to --json as they come, and read back;
- reading what the programs print (key=value words) and printing tables,
  each cell with its ratio;
- the plots: SVG figures of rates against n and the page that shows them.
"""
import argparse
import atexit
import html
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


def peers_config(names=(), openmp=()):
    """The peers' settings, one line for the foot of a table, each named
    variant's own settings after; openmp: the runtimes that get OpenMP's
    settings, where not all."""
    env = peer_env()
    line = "peers: " + (f"OpenMP ({', '.join(openmp)}) " if openmp else "")
    line += " ".join(f"{k}={env.get(k, 'default')}" for k in
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
        """The exit status: 1 where a run failed (counted) or none left a
        record (said), else status."""
        if self.failed:
            self.note(f"{self.failed} run(s) FAILED (see above)")
            return 1
        if not self.records:
            self.note("no results")
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


# What tells bench/suite's runs apart: a record's fields (a runtime run at
# several blocks, ScaLAPACK's, has a key per block).
SUITE_KEY = ("group", "kernel", "n", "ranks", "threads", "runtime", "b")


def good(record):
    """Whether a record of bench/suite is a run that passed its check, with
    a rate."""
    rate = record.get("rate")
    return (record.get("ok") == 1 and "error" not in record
            and isinstance(rate, (int, float)) and rate > 0)


def runs_by(records, key):
    """key(record) -> {"good": the records of bench/suite's good runs,
    "rates": their rates, "failed": how many runs failed, "unit": the first
    unit said}."""
    runs = {}
    for r in records:
        k = runs.setdefault(key(r), {"good": [], "rates": [], "failed": 0,
                                     "unit": ""})
        k["unit"] = k["unit"] or r.get("unit", "")
        if good(r):
            k["good"].append(r)
            k["rates"].append(r["rate"])
        else:
            k["failed"] += 1
    return runs


def cell(value, ref=None, fmt="{:.2f}"):
    """A table's cell: value with fmt and, where ref > 0, its ratio to ref:
    "12.34 (1.05x)"; "-" where there is no value."""
    if value is None:
        return "-"
    text = fmt.format(value)
    return f"{text} ({value / ref:.2f}x)" if ref else text


def print_table(header, rows, left=1):
    """Columns as wide as their widest cell, the first left of them
    left-aligned, the others right-aligned."""
    rows = [[str(c) for c in row] for row in [header] + rows]
    widths = [max(len(r[i]) for r in rows if i < len(r))
              for i in range(len(header))]
    for row in rows:
        print(" ".join(c.ljust(w) if i < left else c.rjust(w)
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


# ------------------------------------------------------------------ plots
# The plotter: figures of panels, each a rate against n on a log axis with
# a line per series (a runtime on a rank count: its colour the runtime's,
# its marker and dashes the rank count's), as self-contained SVG, and the
# page that shows them.

COLORS = {"dag": "#1f77b4", "serial": "#7f7f7f", "omp": "#ff7f0e",
          "omptask": "#2ca02c", "lapacke": "#9467bd", "scalapack": "#8c564b",
          "petsc": "#e377c2", "machine": "#17becf"}
MORE_COLORS = ["#bcbd22", "#d62728", "#393b79", "#637939", "#843c39"]
PANEL_W, PANEL_H = 420, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 48
LEGEND_W = 190


def fmt_rate(x):
    """A rate with the digits that matter: 123, 12.3, 1.23, 0.0012."""
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}" if x >= 0.01 else f"{x:.2g}"


def color(runtime):
    if runtime in COLORS:
        return COLORS[runtime]
    return MORE_COLORS[sum(map(ord, runtime)) % len(MORE_COLORS)]


def cross(x, y, stroke):
    return (f'<path d="M{x - 4:.1f},{y - 4:.1f}l8,8m0,-8l-8,8" '
            f'stroke="{stroke}" stroke-width="2"/>')


def marker(ranks, x, y, fill):
    """A point's shape says its rank count: 1 circle, 2 square, 4 triangle,
    8 diamond, other counts a cross."""
    if ranks == 1:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{fill}"/>'
    if ranks == 2:
        return (f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" '
                f'fill="{fill}"/>')
    shapes = {4: [(0, -5), (5, 4), (-5, 4)],
              8: [(0, -5), (5, 0), (0, 5), (-5, 0)]}
    if ranks in shapes:
        points = " ".join(f"{x + dx:.1f},{y + dy:.1f}"
                          for dx, dy in shapes[ranks])
        return f'<polygon points="{points}" fill="{fill}"/>'
    return cross(x, y, fill)


def dashes(ranks):
    """A line's pattern says its rank count too: 1 solid, then dashed."""
    pattern = {1: None, 2: "6 3", 4: "2 3"}.get(ranks, "8 3 2 3")
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def nice_step(span, count):
    """A step of 1, 2 or 5 times a power of ten giving about count ticks."""
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def n_label(v):
    if v >= 1e6:
        return f"{v / 1e6:.3g}M"
    return f"{v / 1e3:.3g}k" if v >= 1e4 else f"{v:g}"


def x_ticks(ns, lo, hi):
    """The sizes themselves when there are few, else 1, 2, 5 x 10^k (only
    10^k when those are too many) between 10^lo and 10^hi."""
    if len(set(ns)) <= 6:
        return sorted(set(ns))
    for steps in ((1, 2, 5), (1,)):
        ticks = [m * 10 ** k for k in range(math.floor(lo), math.ceil(hi) + 1)
                 for m in steps if lo <= math.log10(m * 10 ** k) <= hi]
        if len(ticks) <= 8:
            break
    return ticks


def panel(p, ox, oy):
    """A panel's SVG elements at (ox, oy). p: title, unit, x (the axis's
    words), ceiling ((name, rate) or None) and lines: series (runtime,
    ranks, label) -> [(n, rate, None where every run failed)], failed
    points as red crosses on the axis."""
    unit, lines, ceiling = html.escape(p["unit"]), p["lines"], p["ceiling"]
    w, h = PANEL_W - LEFT - RIGHT, PANEL_H - TOP - BOTTOM
    ns = [n for pts in lines.values() for n, _ in pts]
    rates = [r for pts in lines.values() for _, r in pts if r is not None]
    lo, hi = math.log10(min(ns)), math.log10(max(ns))
    pad = max(0.15, 0.05 * (hi - lo))
    lo, hi = lo - pad, hi + pad
    top = max(rates + ([ceiling[1]] if ceiling else []), default=0) * 1.08
    top = top or 1.0
    step = nice_step(top, 5)
    top = math.ceil(top / step) * step

    def px(n):
        return ox + LEFT + (math.log10(n) - lo) / (hi - lo) * w

    def py(rate):
        return oy + TOP + h - rate / top * h

    out = [f'<text x="{ox + LEFT + w / 2:.1f}" y="{oy + 20}" '
           f'class="title">{html.escape(p["title"])} ({unit})</text>',
           f'<rect x="{ox + LEFT}" y="{oy + TOP}" width="{w}" height="{h}" '
           'class="frame"/>']
    for i in range(round(top / step) + 1):
        y = py(i * step)
        out.append(f'<line x1="{ox + LEFT}" x2="{ox + LEFT + w}" y1="{y:.1f}" '
                   f'y2="{y:.1f}" class="grid"/><text x="{ox + LEFT - 6}" '
                   f'y="{y + 4:.1f}" class="ytick">{i * step:g}</text>')
    for n in x_ticks(ns, lo, hi):
        x = px(n)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{oy + TOP}" '
                   f'y2="{oy + TOP + h}" class="grid"/><text x="{x:.1f}" '
                   f'y="{oy + TOP + h + 16}" class="xtick">{n_label(n)}'
                   '</text>')
    out.append(f'<text x="{ox + LEFT + w / 2:.1f}" y="{oy + PANEL_H - 8}" '
               f'class="axis">{html.escape(p["x"])}</text>')
    out.append(f'<text transform="translate({ox + 16},{oy + TOP + h / 2:.1f}) '
               f'rotate(-90)" class="axis">{unit}</text>')
    if ceiling:
        y = py(ceiling[1])
        out.append(f'<line x1="{ox + LEFT}" x2="{ox + LEFT + w}" '
                   f'y1="{y:.1f}" y2="{y:.1f}" class="ceiling"/>'
                   f'<text x="{ox + LEFT + w - 4}" y="{y - 5:.1f}" '
                   f'class="ceiling-label">{ceiling[0]} '
                   f'{fmt_rate(ceiling[1])} {unit}</text>')
    for (runtime, ranks, label), pts in lines.items():
        fill = color(runtime)
        ok = [(n, r) for n, r in pts if r is not None]
        if len(ok) > 1:
            coords = " ".join(f"{px(n):.1f},{py(r):.1f}" for n, r in ok)
            out.append(f'<polyline points="{coords}" fill="none" '
                       f'stroke="{fill}" stroke-width="2"{dashes(ranks)}/>')
        for n, r in pts:
            name = html.escape(f"{label} n={n}")
            if r is None:
                out.append(f'<g><title>{name}: failed</title>'
                           f'{cross(px(n), py(0), "#d00")}</g>')
            else:
                out.append(f'<g><title>{name}: {fmt_rate(r)} {unit}</title>'
                           f'{marker(ranks, px(n), py(r), fill)}</g>')
    return out


STYLE = """<style>
text { font-family: sans-serif; font-size: 12px; fill: #222; }
.heading { font-size: 18px; font-weight: bold; }
.title { font-size: 14px; text-anchor: middle; }
.axis { text-anchor: middle; }
.xtick { text-anchor: middle; font-size: 11px; }
.ytick { text-anchor: end; font-size: 11px; }
.frame { fill: none; stroke: #444; }
.grid { stroke: #e4e4e4; }
.ceiling { stroke: #555; stroke-width: 1.5; stroke-dasharray: 7 4; }
.ceiling-label { text-anchor: end; font-size: 11px; fill: #555; }
</style>"""


def figure(heading, panels, series, legend):
    """An SVG of panels (panel's p), three a row, and on the right the
    legend: its words, then each of series (runtime, ranks, label) and the
    ceiling."""
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    width, height = cols * PANEL_W + LEGEND_W, 40 + rows * PANEL_H
    height = max(height, 60 + 22 * len(series))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}">', STYLE,
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="12" y="26" class="heading">{html.escape(heading)}'
           '</text>']
    for i, p in enumerate(panels):
        out += panel(p, (i % cols) * PANEL_W, 40 + (i // cols) * PANEL_H)
    x = cols * PANEL_W + 10
    out.append(f'<text x="{x}" y="{40 + TOP - 10}">{html.escape(legend)}'
               '</text>')
    for j, (runtime, ranks, label) in enumerate(series):
        y = 40 + TOP + 10 + 22 * j
        out.append(f'<line x1="{x}" x2="{x + 28}" y1="{y}" y2="{y}" '
                   f'stroke="{color(runtime)}" stroke-width="2"'
                   f'{dashes(ranks)}/>' + marker(ranks, x + 14, y,
                                                 color(runtime))
                   + f'<text x="{x + 36}" y="{y + 4}">{html.escape(label)}'
                   '</text>')
    y = 40 + TOP + 10 + 22 * len(series)
    out.append(f'<line x1="{x}" x2="{x + 28}" y1="{y}" y2="{y}" '
               f'class="ceiling"/><text x="{x + 36}" y="{y + 4}">ceiling'
               '</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_plots(directory, title, about, figures):
    """DIR/<name>.svg for each of figures (name -> SVG), and DIR/index.html
    with them all inline (hover a point for its value) under title and the
    paragraph about."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, svg in figures.items():
        (directory / f"{name}.svg").write_text(svg)
    sections = "\n".join(f'<div class="group">{svg}</div>'
                         for svg in figures.values())
    (directory / "index.html").write_text(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>body {{ font-family: "
        "sans-serif; margin: 1em 2em; } .group svg { max-width: 100%; "
        "height: auto; }</style></head>\n"
        f"<body><h1>{html.escape(title)}</h1>\n<p>{html.escape(about, False)}</p>\n"
        + sections + "\n</body></html>\n")
