"""The loader suite of bench/fair.py: ckptbench's data loader beside a real
PyTorch DataLoader (bench/torch_loader.py) over the same dataset, with the
same access, ranks, workers, batch size and prefetch, alternating.

  local map       --dl-samples files of --dl-sample-bytes (spread over
                  ranks x workers directories), map-style
  local iterable  the same samples in TAR shards (4 per worker, so every
                  worker has shards to read), iterable as WebDataset runs
  s3 map          --dl-s3-samples objects on Swift + s3api, map-style; the
                  PyTorch side does a boto3 get_object per sample
  s3 iterable     the same samples in TAR shards on Swift, iterable

Both sides start cold (caches dropped, fair.settle) and run one epoch with
no accelerator time (ckptbench's compute_time 0; the PyTorch side consumes
each batch as it comes): the rate is the samples' own bytes over the epoch's
seconds (ckptbench's timed round; the PyTorch epoch from the ranks' common
start to the last batch), so the ratio is that of samples/s. CPU is the
whole process tree on each side (PyTorch's import and the dataset's listing
or index included; ckptbench's start-up and preflight included). Each side
must read the same number of samples. What the ratio means: ckptbench's
figure is the storage-side ceiling of a loader that verifies every byte;
the real loader adds Python, a process per worker, tensors and collation,
which is what a training job on this storage will see.
"""

import functools
import json
import os
import shutil
import statistics
import subprocess
import sys

import fair
import fair_dataload

HERE = os.path.dirname(os.path.abspath(__file__))
FIRST_BATCH = []  # lines for the table's foot: time to first batch
FIRST_PARTS = []  # and its parts, per case and side
PARTS = ("start", "worker_start", "connect", "reads", "handoff", "dataset")


@functools.lru_cache(maxsize=None)
def torch_python():
    """A Python that imports torch: $TORCH_PYTHON, this one, or Debian's."""
    for py in (os.environ.get("TORCH_PYTHON"), sys.executable,
               "/usr/bin/python3"):
        if py and subprocess.run([py, "-c", "import torch"],
                                 capture_output=True).returncode == 0:
            return py
    raise SystemExit("fair.py: the loader suite needs PyTorch (Debian: "
                     "apt-get install python3-torch python3-boto3, or set "
                     "TORCH_PYTHON to a python that imports torch)")


def ckpt_epoch(ck, uri, case):
    res = os.path.join(ck.work, "res")
    wall, cpu, rnd = fair_dataload.epoch_run(ck, fair_dataload.ckpt_cmd(
        ck, res, uri, case["samples"], case["sample_bytes"],
        case["prefixes"], case["ranks"], case["workers"],
        [f"CKPT_SHARD_BYTES={case['shard_bytes']}",
         f"CKPT_DATALOAD_ACCESS={case['access']}",
         f"CKPT_PREFETCH_FACTOR={case['prefetch']}",
         f"CKPT_SHUFFLE_BUFFER={case['shuffle_buffer']}"],
        fmt=case["format"], batch=case["batch"]), res)
    samples = rnd["epoch"]["samples"]
    nbytes = samples * case["sample_bytes"]
    run = fair.Run("ckptbench", nbytes / fair.MIB / rnd["seconds"], wall,
                   cpu, nbytes, fair_dataload.round_cpu(rnd))
    run.samples, run.first = samples, rnd["epoch"]["first_batch_seconds"]
    f = rnd["epoch"].get("first_batch")
    if not f:
        raise SystemExit("fair.py: ckptbench's epoch has no first batch")
    run.parts = dict(zip(PARTS, (
        f["node_start_seconds"], f["worker_start_seconds"],
        f["connect_seconds"], f["reads_seconds"], f["handoff_seconds"],
        f["dataset_seconds"])))
    run.steady = steady_rate(samples - case["batch"] * case["ranks"],
                             case["sample_bytes"], rnd["seconds"] - run.first)
    return run


def torch_epoch(ck, py, uri, case, endpoint):
    cmd = [py, os.path.join(HERE, "torch_loader.py"), "--root", uri,
           "--format", case["format"], "--access", case["access"],
           "--ranks", str(case["ranks"]), "--workers", str(case["workers"]),
           "--batch", str(case["batch"]), "--prefetch", str(case["prefetch"]),
           "--shuffle-buffer", str(case["shuffle_buffer"]), "--drop-caches"]
    if endpoint:
        cmd += ["--endpoint", endpoint]
    wall, cpu, text = fair.measured(cmd, env=ck.env)
    got = json.loads(text.strip().splitlines()[-1])
    if got["sample_bytes"] != got["samples"] * case["sample_bytes"]:
        raise SystemExit(f"fair.py: the PyTorch loader read "
                         f"{got['sample_bytes']} bytes in {got['samples']} "
                         "samples, not whole samples")
    run = fair.Run("PyTorch DataLoader", got["sample_bytes"] / fair.MIB /
                   got["seconds"], wall, cpu, got["sample_bytes"])
    run.samples, run.first = got["samples"], got["first_batch_seconds"]
    f = got["first_batch"]
    run.parts = dict(zip(PARTS, (
        f["rank_start"], f["worker_start"], f["client_seconds"], f["reads"],
        f["handoff"], f["dataset_seconds"])))
    run.steady = steady_rate(got["samples"] - got["first_batch_samples"],
                             case["sample_bytes"], got["seconds"] - run.first)
    return run


def steady_rate(samples, sample_bytes, seconds):
    """MiB/s after the first batch: without the start (worker processes,
    connections) that the epoch's own rate includes."""
    return samples * sample_bytes / fair.MIB / max(seconds, 1e-9)


def compare(args, ck, name, uri, case, endpoint=None):
    """Alternating pairs over a dataset datagen makes (and then removes)."""
    py = torch_python()
    fair.log(f"loader {name}: {case['samples']} samples of "
             f"{case['sample_bytes']} bytes ({case['format']}), "
             f"{case['access']}, {case['ranks']} rank(s) x "
             f"{case['workers']} workers, batch {case['batch']}")
    fair_dataload.datagen(
        ck, uri, case["samples"], case["sample_bytes"], case["prefixes"],
        case["format"], case["shard_bytes"])
    runs = {"ckptbench": [], "PyTorch DataLoader": []}
    try:
        for i, order in enumerate(fair.alternate(args.pairs, list(runs))):
            for tool in order:
                fair.settle()
                r = (ckpt_epoch(ck, uri, case) if tool == "ckptbench" else
                     torch_epoch(ck, py, uri, case, endpoint))
                fair.record(runs, f"loader {name} pair {i + 1}", r,
                            f"  first batch {r.first:.3f} s")
            a, b = (runs[t][-1] for t in runs)
            if a.samples != b.samples:
                raise SystemExit(f"fair.py: loader {name}: ckptbench read "
                                 f"{a.samples} samples, PyTorch {b.samples}")
    finally:
        subprocess.run([ck.binary, "datagen", "-q", "--remove",
                        f"CKPT_DATASET_PATH={uri}",
                        "--results-dir", os.path.join(ck.work, "rm")],
                       env=ck.env, capture_output=True)
        shutil.rmtree(os.path.join(ck.work, "rm"), ignore_errors=True)
    a, b = runs["ckptbench"], runs["PyTorch DataLoader"]
    firsts = " | ".join(f"{statistics.median(r.first for r in runs[t]):.3f} s"
                        for t in runs)
    if any(r.first > r.bytes / fair.MIB / r.rate / 2 for r in a + b):
        # An iterable worker whose share fits its shuffle buffer reads it
        # all before its first batch: nothing is left to time after it.
        steady = "- | - | - (the first batch came after half the epoch)"
    else:
        steady = (f"{statistics.median(r.steady for r in a):.1f} | "
                  f"{statistics.median(r.steady for r in b):.1f} | "
                  f"{statistics.median(x.steady / y.steady for x, y in zip(a, b)):.2f}x")
    FIRST_BATCH.append(f"| loader {name} | {firsts} | {steady} |")
    for tool in runs:
        parts = " | ".join(
            f"{statistics.median(r.parts[k] for r in runs[tool]):.3f}"
            for k in PARTS)
        first = statistics.median(r.first for r in runs[tool])
        FIRST_PARTS.append(f"| loader {name} | {tool} | {first:.3f} | "
                           f"{parts} |")
    return fair.summarize(f"loader {name}, {case['sample_bytes'] // 1024} "
                          f"KiB samples, {case['ranks']}x{case['workers']} "
                          f"workers, batch {case['batch']}", runs)


def case_for(args, fmt, access, samples, ranks, prefixes):
    size = args.dl_sample_bytes
    workers = args.dl_workers
    # TAR: about 4 shards per worker of every rank.
    shard = max(4096, samples * (size + 1536) // (4 * ranks * workers))
    return {"format": fmt, "access": access, "samples": samples,
            "sample_bytes": size, "prefixes": prefixes if fmt == "files"
            else 0, "shard_bytes": shard, "ranks": ranks,
            "workers": workers, "batch": 32, "prefetch": 2,
            "shuffle_buffer": 1000}


def local_cases(args, ck, rows):
    root = os.path.join(args.dir, "loader")
    r = args.ranks
    rows += compare(args, ck, "local map", root, case_for(
        args, "files", "map", args.dl_samples, r, r * args.dl_workers))
    rows += compare(args, ck, "local iterable", root, case_for(
        args, "tar", "iterable", args.dl_samples, r, 0))
    shutil.rmtree(root, ignore_errors=True)


def s3_cases(args, ck, rows, endpoint):
    uri = "s3://bench/loader"
    rows += compare(args, ck, "s3 map", uri, case_for(
        args, "files", "map", args.dl_s3_samples, 1, 0), endpoint)
    rows += compare(args, ck, "s3 iterable", uri, case_for(
        args, "tar", "iterable", args.dl_s3_samples, 1, 0), endpoint)


def first_batch_table():
    if not FIRST_BATCH:
        return ""
    return ("\n| case | first batch ckptbench | first batch PyTorch | "
            "MiB/s after it, ckptbench | PyTorch | ratio |\n"
            "|---|---|---|---|---|---|\n" + "\n".join(FIRST_BATCH) +
            "\n(medians; the rate after the first batch leaves out each "
            "side's start: PyTorch's worker processes, ckptbench's first "
            "requests)\n"
            "\n| case | side | first batch s | = rank start | + worker "
            "start | + connecting / client | + reads | + hand-off | before "
            "the epoch: dataset |\n|---|---|---|---|---|---|---|---|---|\n" +
            "\n".join(FIRST_PARTS) +
            "\n(medians of each part, so they need not add up exactly; "
            "the slowest rank's first batch. ckptbench: a worker thread "
            "starting, its connections opened, its reads (verified), the "
            "batch waiting its turn; the dataset: its manifest read. "
            "PyTorch: a worker process forked and initialized, its boto3 "
            "client made (S3), its reads and collation, the batch pickled "
            "through the workers' queue; the dataset: its listing (map-style "
            "TAR: and index))\n")
