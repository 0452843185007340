#!/usr/bin/env python3
"""Shrinks a libFuzzer corpus to a small set with the same edge coverage.

libFuzzer 14's `-merge=1` keeps inputs in size order as long as each adds a
new feature, which leaves many inputs whose edges later ones also cover.
This script measures each input's full edge set (one `-merge=1
-use_counters=0` run per input, reading the merge control file) and keeps a
greedy set cover: repeatedly the input covering most still-uncovered edges
(ties: the smaller file). Usage:

  minimize_corpus.py FUZZ_BINARY OUT_DIR IN_DIR... [-- EXTRA_LIBFUZZER_FLAGS]

Run `-merge=1 -use_counters=0` into a scratch directory first (the inputs
here are measured one by one, so start from an already merged set)."""

import os
import shutil
import subprocess
import sys
import tempfile


def edges_of(binary, path, extra, scratch):
    control = os.path.join(scratch, "control")
    out = os.path.join(scratch, "out")
    one = os.path.join(scratch, "in")  # -merge reads directories only
    for d in (out, one):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    shutil.copy(path, one)
    if os.path.exists(control):
        os.remove(control)
    subprocess.run([binary, "-merge=1", "-use_counters=0", "-merge_control_file=" + control,
                    *extra, out, one], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    edges = set()
    with open(control) as f:
        for line in f:
            if line.startswith("COV "):
                edges.update(int(x) for x in line.split()[2:])
    return edges


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if len(args) < 3:
        sys.exit(__doc__)
    binary, out_dir, in_dirs = args[0], args[1], args[2:]
    files = sorted(os.path.join(d, n) for d in in_dirs for n in os.listdir(d)
                   if os.path.isfile(os.path.join(d, n)))
    with tempfile.TemporaryDirectory() as scratch:
        inputs = {path: edges_of(binary, path, extra, scratch) for path in files}
    uncovered = set().union(*inputs.values()) if inputs else set()
    total = len(uncovered)
    chosen = []
    while uncovered:
        best = max(inputs, key=lambda p: (len(inputs[p] & uncovered), -os.path.getsize(p), p))
        gain = inputs[best] & uncovered
        if not gain:
            break
        chosen.append(best)
        uncovered -= gain
    os.makedirs(out_dir, exist_ok=True)
    for path in chosen:
        shutil.copy(path, os.path.join(out_dir, os.path.basename(path)))
    print(f"{len(files)} inputs, {total} edges -> {len(chosen)} inputs covering all of them")


if __name__ == "__main__":
    main()
