#!/usr/bin/env python3
"""check_trace.py: runs a program under mpiexec with DAG_TRACE, DAG_GRAPH and
DAG_STATS and checks the one timeline and the one graph it must leave:

  check_trace.py RANKS [--waits N] MPIEXEC [OPTIONS...] -- PROGRAM [ARGS...]

- the file is valid JSON, and no rank's part is left beside it;
- one process per rank, named "rank r", each with a track per worker and
  one named "MPI", and a label giving its clock offsets;
- one flow arrow per transfer: as many arrow starts ("s") as arrow ends
  ("f"), every start matched by an end of the same id, and as many as the
  messages DAG_STATS says the ranks sent in all;
- the clock offsets measured at start and at the end lie within the error
  the runtime states for them, or 1 ms (the ranks share a machine, and so a
  clock: the true offset is 0);
- the graph has a cluster per rank, and a dashed edge (send to receive)
  per message sent, between nodes that exist;
- with --waits N, each rank's cluster has N taskwait nodes, each with a
  dotted edge in and one out, between nodes that exist.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ranks = int(sys.argv[1])
args = sys.argv[2:]
waits = None
if args[:1] == ["--waits"]:
    waits = int(args[1])
    args = args[2:]
command = [a for a in args if a != "--"]
fail = []

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "run.json")
    dot = os.path.join(tmp, "run.dot")
    env = dict(os.environ, DAG_TRACE=path, DAG_GRAPH=dot, DAG_STATS="1")
    run = subprocess.run(command, env=env, capture_output=True, text=True,
                         timeout=300)
    out = run.stdout + run.stderr
    if run.returncode:
        fail.append(f"the program exited with status {run.returncode}")
    left = sorted(f for f in os.listdir(tmp) if f not in ("run.json", "run.dot"))
    if left:
        fail.append(f"parts left beside the merged file: {left}")
    if not os.path.exists(path):
        print(f"check_trace: FAILED: no {path}\n{out}")
        sys.exit(1)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    with open(dot) as f:
        graph = f.read()

names = {e["pid"]: e["args"]["name"] for e in events
         if e.get("ph") == "M" and e["name"] == "process_name"}
if names != {r: f"rank {r}" for r in range(ranks)}:
    fail.append(f"processes {names}, expected ranks 0 to {ranks - 1}")
for r in range(ranks):
    tracks = {e["args"]["name"] for e in events if e.get("ph") == "M"
              and e["name"] == "thread_name" and e["pid"] == r}
    if "MPI" not in tracks or "worker 0" not in tracks:
        fail.append(f"rank {r} has tracks {sorted(tracks)}")
starts = [e["id"] for e in events if e.get("ph") == "s"]
ends = [e["id"] for e in events if e.get("ph") == "f"]
sent = sum(int(n) for n in re.findall(r"sent (\d+) messages", out))
if not (len(starts) == len(ends) == len(set(starts) & set(ends)) == sent):
    fail.append(f"{len(starts)} arrow starts, {len(ends)} ends, "
                f"{len(set(starts) & set(ends))} matched, {sent} messages sent")
if sent == 0:
    fail.append("no message was sent: nothing to draw")
for e in events:
    if e.get("name") == "process_labels":
        label = e["args"]["labels"]
        a, b = map(int, re.findall(r"([+-]\d+) ns at", label))
        err = int(re.search(r"error at most (\d+) ns", label).group(1))
        # The ranks share one clock: each offset must lie within the error
        # the runtime states for it (at least 1 ms), which grows when the
        # machine is loaded and ping-pongs are slow.
        bound = max(err, 1000000)
        if abs(a) > bound or abs(b) > bound:
            fail.append(f"rank {e['pid']}: clock offsets {a} and {b} ns, "
                        f"error at most {err} ns")

clusters = re.findall(r"subgraph cluster_rank(\d+)", graph)
if sorted(map(int, clusters)) != list(range(ranks)):
    fail.append(f"graph clusters {clusters}")
nodes = set(re.findall(r"^\s*(r\d+_t\d+) \[label=", graph, re.M))
messages = re.findall(r"^\s*(r\d+_t\d+) -> (r\d+_t\d+) \[style=dashed",
                      graph, re.M)
if len(messages) != sent or any(a not in nodes or b not in nodes
                                 for a, b in messages):
    fail.append(f"{len(messages)} message edges in the graph for {sent} "
                f"messages sent (or edges between unknown nodes)")

if waits is not None:
    dotted = re.findall(r"^\s*(r\d+_t\d+) -> (r\d+_t\d+) \[style=dotted\]",
                        graph, re.M)
    for r in range(ranks):
        found = re.findall(rf"^\s*(r{r}_t\d+) \[label=\"taskwait\\n#\d+\", "
                           r"shape=octagon\]", graph, re.M)
        if len(found) != waits:
            fail.append(f"rank {r}: {len(found)} taskwait nodes, not {waits}")
        for w in found:
            if not any(b == w for a, b in dotted) or \
               not any(a == w for a, b in dotted):
                fail.append(f"taskwait {w} lacks a dotted edge in or out")
    if any(a not in nodes or b not in nodes for a, b in dotted):
        fail.append("dotted edges between unknown nodes")

print(f"check_trace: {ranks} ranks, {len(events)} events, {len(starts)} "
      f"arrows, {sent} messages sent, graph: {len(nodes)} nodes, "
      f"{len(messages)} message edges")
if fail:
    print("check_trace: FAILED:\n  " + "\n  ".join(fail))
    print(out)
    sys.exit(1)
