"""The dataload suite of bench/fair.py: ckptbench's data loader against a
peer making the same per-sample reads of the same files, alternating.

  local  a dataset of --dl-samples files of --dl-sample-bytes each (made by
         `ckptbench datagen`, format files, spread over P = ranks x workers
         directories samples/HH/), read by one epoch of ckptbench's
         map-style loader (NUM_DEVICES=R, dataload.num_workers=W, batch 32,
         compute_time 0: no backpressure; caches dropped at the epoch's
         start as for every run) against fio with one job per directory
         (--opendir=samples/HH, --bs=<sample size>, psync,
         --file_service_type=sequential: each file opened, read whole in one
         request and closed, as a worker reads a sample), so P readers each
         way. Rates: ckptbench's epoch (bytes over its timed round), fio's
         bw_bytes.
  s3     --dl-s3-samples of the same size (files, no prefixes) on Swift + s3api, read by one
         rank of W workers (W connections, one GET per sample, no HEAD)
         against one `curl -Z --parallel-max W` over a --config file of the
         same sample URLs (SigV4, one GET each). curl's rate is the bytes
         over its process's wall time (it includes its start, a few ms).
  local iterable / s3 iterable  the same samples as TAR shards (datagen
         format tar, about 8 shards per reader of at most 8 MiB locally,
         2 MiB on S3, plus three samples), read by
         ckptbench's iterable loader (each worker streams its shards in
         io.block_size reads, 4 MiB, through the TAR reader and a shuffle
         buffer) against fio with one job per reader over that many shards
         each (--filename=a:b:..., sequential, --bs=4M or, where fio would
         leave more than 5% of the shards unread, smaller: it reads whole
         blocks of a file only; its rate is what it read over its time,
         and the log says what share it read), and against `curl -Z --parallel-max W` GETting every shard
         whole (its rate: the samples' bytes over its wall time).
Per sample, bytes are the same on both sides, so the MiB/s ratio is the
samples/s ratio; ckptbench's rate with shards counts the samples' bytes,
not the TAR headers it also reads (~1% here).
"""

import collections
import json
import os
import re
import shutil
import subprocess
import tempfile

import curl_requests
import fair


def datagen(ck, uri, samples, sample_bytes, prefixes, fmt="files",
            shard_bytes=None):
    """Makes the dataset with ckptbench (untimed here): sample files, or
    TAR shards of about shard_bytes."""
    shutil.rmtree(os.path.join(ck.work, "gen"), ignore_errors=True)
    shards = [f"CKPT_SHARD_BYTES={shard_bytes}"] if shard_bytes else []
    fair.measured([ck.binary, "datagen", "-q",
                   f"CKPT_DATASET_PATH={uri}", f"CKPT_DATASET_FORMAT={fmt}",
                   f"CKPT_DATASET_SAMPLES={samples}",
                   f"CKPT_SAMPLE_BYTES={sample_bytes}",
                   "CKPT_SAMPLE_SPREAD=0",
                   f"CKPT_DATASET_SPREAD_PREFIXES={prefixes}",
                   "--results-dir", os.path.join(ck.work, "gen")] + shards,
                  env=ck.env)


PER_SAMPLE = []  # the table of what each side does per sample


def ckpt_cmd(ck, res, uri, samples, sample_bytes, prefixes, ranks, workers,
             extra=(), fmt="files", batch=32):
    """One epoch of ckptbench's loader, no accelerator time; `extra`:
    more KEY=VALUE settings."""
    return [ck.binary, "run", "-q", "--results-dir", res,
            "CKPT_WORKLOAD=dataload", f"CKPT_DATASET_PATH={uri}",
            f"CKPT_DATASET_FORMAT={fmt}", f"CKPT_DATASET_SAMPLES={samples}",
            f"CKPT_SAMPLE_BYTES={sample_bytes}", "CKPT_SAMPLE_SPREAD=0",
            f"CKPT_DATASET_SPREAD_PREFIXES={prefixes}", f"NUM_DEVICES={ranks}",
            f"CKPT_NUM_WORKERS={workers}", f"CKPT_BATCH_SIZE={batch}",
            "CKPT_EPOCHS=1", "CKPT_COMPUTE_TIME=0"] + list(extra)


def epoch_run(ck, cmd, res):
    """Runs cmd (ckpt_cmd's, results in res): (wall, CPU, its epoch's
    round), the round ok and every sample read once."""
    shutil.rmtree(res, ignore_errors=True)
    wall, cpu, _ = fair.measured(cmd, env=ck.env)
    with open(os.path.join(res, "result.json")) as f:
        rnd = json.load(f)["rounds"][-1]
    if rnd["status"] != "ok" or not rnd["epoch"]["each_sample_once"]:
        raise SystemExit("fair.py: ckptbench's epoch failed or did not read "
                         "every sample once")
    return wall, cpu, rnd


def round_cpu(rnd):
    return rnd["cpu"]["user_seconds"] + rnd["cpu"]["system_seconds"]


ITERABLE = ["CKPT_DATALOAD_ACCESS=iterable", "CKPT_BLOCK_SIZE=4MiB"]


def ckpt_epoch(ck, name, uri, samples, sample_bytes, prefixes, ranks,
               workers, extra=(), fmt="files"):
    res = os.path.join(ck.work, "res")
    wall, cpu, rnd = epoch_run(ck, ckpt_cmd(
        ck, res, uri, samples, sample_bytes, prefixes, ranks, workers,
        extra, fmt), res)
    run = fair.Run(name, rnd["bytes"] / fair.MIB / rnd["seconds"], wall, cpu,
                   rnd["bytes"], round_cpu(rnd))
    run.requests, run.connections = rnd["requests"], rnd["new_connections"]
    return run


CALL = re.compile(r"^(\d+)\s+(?:<\.\.\. )?([a-z_0-9]+)[( ]")
READ_SIZE = re.compile(r", (\d+), \d+\) += (\d+)$")


def strace_window(cmd, sample_bytes, env=None):
    """The system calls of cmd's reading threads and processes while they
    read samples (strace -f): {name: calls}, each thread counted from its
    first pread64 of a whole sample to its last, so neither side's start,
    setup or checks before reading count, nor threads that do not read."""
    out = os.path.join(tempfile.mkdtemp(prefix="ckptbench-strace."), "log")
    try:
        fair.measured(["strace", "-f", "-o", out] + cmd, env=env)
        calls = collections.defaultdict(list)  # tid -> [name or "<read>"]
        with open(out, errors="replace") as f:
            for line in f:
                m = CALL.match(line)
                if not m:
                    continue
                tid, name = m.groups()
                if "resumed>" not in line:
                    calls[tid].append(name)
                r = READ_SIZE.search(line.rstrip())
                if name == "pread64" and r and int(r.group(1)) == sample_bytes:
                    calls[tid].append("<read>")
        counts = collections.Counter()
        for seq in calls.values():
            marks = [k for k, n in enumerate(seq) if n == "<read>"]
            if marks:
                counts.update(n for n in seq[marks[0]:marks[-1] + 1]
                              if n != "<read>")
        return counts
    finally:
        shutil.rmtree(os.path.dirname(out), ignore_errors=True)


def syscall_rows(case, samples, mine, theirs, peer):
    """Per sample, the calls either side makes at least 0.05 times."""
    names = sorted(set(mine) | set(theirs),
                   key=lambda n: -(mine.get(n, 0) + theirs.get(n, 0)))
    rows = [f"| {case} | {n} | {mine.get(n, 0) / samples:.2f} | "
            f"{theirs.get(n, 0) / samples:.2f} |" for n in names
            if max(mine.get(n, 0), theirs.get(n, 0)) >= 0.05 * samples]
    rows.append(f"| {case} | all | {sum(mine.values()) / samples:.2f} | "
                f"{sum(theirs.values()) / samples:.2f} ({peer}) |")
    return rows


def per_sample_table():
    if not PER_SAMPLE:
        return ""
    return ("\n| per sample | what | ckptbench | peer |\n|---|---|---|---|\n"
            + "\n".join(PER_SAMPLE) + "\n(system calls: one run of each "
            "under strace -f after the timed pairs; the calls of each thread "
            "or process that reads samples, from its first whole-sample "
            "pread64 to its last, over the samples read)\n")


def fio_cmd(root, prefixes, sample_bytes):
    cmd = ["fio", "--rw=read", f"--bs={sample_bytes}", "--ioengine=psync",
           "--file_service_type=sequential", "--group_reporting",
           "--output-format=json"]
    for p in range(prefixes):
        cmd += [f"--name=d{p:02x}", f"--opendir={root}/samples/{p:02x}"]
    return cmd


def fio_dirs(name, root, prefixes, sample_bytes):
    """One fio job per prefix directory, each reading its files whole."""
    wall, cpu, text = fair.measured(fio_cmd(root, prefixes, sample_bytes))
    side = json.loads(text[text.index("{"):])["jobs"][0]["read"]
    return fair.Run(name, side["bw_bytes"] / fair.MIB, wall, cpu,
                    side["io_bytes"])


def local_case(args, ck, rows):
    ranks, workers = args.ranks, args.dl_workers
    prefixes = ranks * workers
    samples, size = args.dl_samples, args.dl_sample_bytes
    root = os.path.join(args.dir, "dataload")
    fair.log(f"dataload local: {samples} files of {size} bytes under "
             f"{prefixes} directories; {ranks} rank(s) x {workers} workers "
             f"against {prefixes} fio jobs")
    datagen(ck, root, samples, size, prefixes)
    runs = {"ckptbench": [], "fio (opendir per prefix)": []}
    try:
        for i, order in enumerate(fair.alternate(args.pairs, list(runs))):
            for tool in order:
                fair.settle()
                if tool == "ckptbench":
                    r = ckpt_epoch(ck, tool, root, samples, size, prefixes,
                                   ranks, workers)
                else:
                    r = fio_dirs(tool, root, prefixes, size)
                fair.record(runs, f"dataload local pair {i + 1}", r)
        if shutil.which("strace"):
            res = os.path.join(ck.work, "res")
            shutil.rmtree(res, ignore_errors=True)
            mine = strace_window(ckpt_cmd(
                ck, res, root, samples, size, prefixes, ranks, workers),
                size, env=ck.env)
            theirs = strace_window(fio_cmd(root, prefixes, size), size)
            PER_SAMPLE.extend(syscall_rows("dataload local", samples, mine,
                                           theirs, "fio"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows += fair.summarize(
        f"dataload local, {size // 1024} KiB samples, {prefixes} readers",
        runs)


def s3_case(args, ck, rows, endpoint, user, work):
    workers = args.dl_workers
    samples, size = args.dl_s3_samples, args.dl_sample_bytes
    uri = "s3://bench/dataload"
    fair.log(f"dataload s3: {samples} objects of {size} bytes; 1 rank x "
             f"{workers} workers against curl -Z --parallel-max {workers}")
    datagen(ck, uri, samples, size, 0)
    config = os.path.join(work, "urls.curl")
    with open(config, "w") as f:
        for s in range(samples):
            f.write(f'url = "{endpoint}/bench/dataload/samples/s{s:010d}.jpg"'
                    '\noutput = "/dev/null"\n')
    runs = {"ckptbench": [], f"curl -Z --parallel-max {workers}": []}
    for i, order in enumerate(fair.alternate(args.pairs, list(runs))):
        for tool in order:
            fair.settle()
            if tool == "ckptbench":
                r = ckpt_epoch(ck, tool, uri, samples, size, 0, 1, workers)
            else:
                cmd = ["curl", "-Z", "--parallel-max", str(workers)] + (
                    curl_requests.sigv4_args(user)) + ["-w",
                       "%{size_download} %{num_connects}\\n",
                       "--config", config]
                wall, cpu, text = fair.measured(cmd)
                each = [line.split() for line in text.splitlines() if line]
                got = sum(int(x[0]) for x in each)
                if got != samples * size:
                    raise SystemExit(f"fair.py: curl read {got} bytes, "
                                     f"expected {samples * size}")
                r = fair.Run(tool, got / fair.MIB / wall, wall, cpu, got)
                r.requests = len(each)
                r.connections = sum(int(x[1]) for x in each)
            fair.record(runs, f"dataload s3 pair {i + 1}", r)
    a, b = runs["ckptbench"][-1], runs[f"curl -Z --parallel-max {workers}"][-1]
    PER_SAMPLE.extend([
        f"| dataload s3 | requests | {a.requests / samples:.2f} | "
        f"{b.requests / samples:.2f} (curl) |",
        f"| dataload s3 | new connections | {a.connections / samples:.4f} | "
        f"{b.connections / samples:.4f} (curl) |"])
    rows += fair.summarize(
        f"dataload s3, {size // 1024} KiB samples, {workers} in flight",
        runs)


def shard_bytes(samples, sample_bytes, readers, cap):
    """About 8 shards per reader (no reader idle while others end), at most
    `cap` bytes each, plus three samples: a shard closes before it would
    pass the target, so shards of a 4 MiB multiple `cap` come out just over
    it and fio, which reads whole blocks only, reads nearly all of each."""
    return min(cap, max(4 * sample_bytes,
                        samples * sample_bytes // (readers * 8))) + (
        3 * (sample_bytes + 1536))


def fio_block(paths):
    """The largest read size from 4 MiB down at which fio, reading whole
    blocks of each file only, reads at least 95% of the files' bytes;
    (block, fraction read)."""
    sizes = [os.path.getsize(p) for p in paths]
    total = sum(sizes)
    bs = 4 * fair.MIB
    while True:
        covered = sum(sz // bs * bs for sz in sizes) / max(1, total)
        if covered >= 0.95 or bs <= 4096:
            return bs, covered
        bs //= 2


def shard_names(root):
    return sorted(n for n in os.listdir(os.path.join(root, "shards"))
                  if n.endswith(".tar"))


def fio_shards_cmd(root, readers, bs):
    """One fio job per reader, each reading its share of the shards in
    turn in reads of bs (fio_block's)."""
    names = shard_names(root)
    cmd = ["fio", "--rw=read", f"--bs={bs}", "--ioengine=psync",
           "--file_service_type=sequential", "--group_reporting",
           "--output-format=json"]
    for r in range(readers):
        mine = [os.path.join(root, "shards", n) for n in names[r::readers]]
        if mine:
            cmd += [f"--name=r{r:02d}", "--filename=" + ":".join(mine)]
    return cmd


def local_iterable_case(args, ck, rows):
    ranks, workers = args.ranks, args.dl_workers
    readers = ranks * workers
    samples, size = args.dl_samples, args.dl_sample_bytes
    root = os.path.join(args.dir, "dataload-tar")
    shard = shard_bytes(samples, size, readers, 8 * fair.MIB)
    fair.log(f"dataload local iterable: {samples} samples of {size} bytes in "
             f"TAR shards of ~{shard // 1024} KiB; {ranks} rank(s) x "
             f"{workers} workers against {readers} fio jobs")
    datagen(ck, root, samples, size, 0, "tar", shard)
    bs, covered = fio_block([os.path.join(root, "shards", n)
                             for n in shard_names(root)])
    fair.log(f"  fio reads {bs // 1024} KiB blocks: {covered:.1%} of the "
             "shards' bytes")
    runs = {"ckptbench": [], "fio (a job per reader)": []}
    try:
        for i, order in enumerate(fair.alternate(args.pairs, list(runs))):
            for tool in order:
                fair.settle()
                if tool == "ckptbench":
                    r = ckpt_epoch(ck, tool, root, samples, size, 0, ranks,
                                   workers, ITERABLE, "tar")
                else:
                    wall, cpu, text = fair.measured(
                        fio_shards_cmd(root, readers, bs))
                    side = json.loads(text[text.index("{"):])["jobs"][0]
                    side = side["read"]
                    r = fair.Run(tool, side["bw_bytes"] / fair.MIB, wall,
                                 cpu, side["io_bytes"])
                fair.record(runs, f"dataload local iterable pair {i + 1}", r)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows += fair.summarize(
        f"dataload local iterable, {size // 1024} KiB samples in "
        f"~{shard / fair.MIB:.2g} MiB shards, {readers} "
        "readers", runs)


def s3_iterable_case(args, ck, rows, endpoint, user, work):
    workers = args.dl_workers
    samples, size = args.dl_s3_samples, args.dl_sample_bytes
    uri = "s3://bench/dataload-tar"
    # The shard names, from a local copy made the same way (datagen's names
    # depend on the spec only).
    local = os.path.join(work, "tar-names")
    shard = shard_bytes(samples, size, workers, 2 * fair.MIB)
    datagen(ck, local, samples, size, 0, "tar", shard)
    names = shard_names(local)
    shard_total = sum(os.path.getsize(os.path.join(local, "shards", n))
                      for n in names)
    shutil.rmtree(local, ignore_errors=True)
    fair.log(f"dataload s3 iterable: {samples} samples of {size} bytes in "
             f"{len(names)} TAR shards of ~{shard // 1024} KiB; 1 rank x "
             f"{workers} workers against curl -Z --parallel-max {workers}")
    datagen(ck, uri, samples, size, 0, "tar", shard)
    config = os.path.join(work, "shards.curl")
    with open(config, "w") as f:
        for n in names:
            f.write(f'url = "{endpoint}/bench/dataload-tar/shards/{n}"\n'
                    'output = "/dev/null"\n')
    peer = f"curl -Z --parallel-max {workers}"
    runs = {"ckptbench": [], peer: []}
    for i, order in enumerate(fair.alternate(args.pairs, list(runs))):
        for tool in order:
            fair.settle()
            if tool == "ckptbench":
                r = ckpt_epoch(ck, tool, uri, samples, size, 0, 1, workers,
                               ITERABLE, "tar")
            else:
                cmd = ["curl", "-Z", "--parallel-max", str(workers)] + (
                    curl_requests.sigv4_args(user)) + ["-w",
                       "%{size_download}\\n", "--config", config]
                wall, cpu, text = fair.measured(cmd)
                got = sum(int(x) for x in text.split())
                if got != shard_total:
                    raise SystemExit(f"fair.py: curl read {got} bytes of "
                                     f"the shards' {shard_total}")
                r = fair.Run(tool, samples * size / fair.MIB / wall, wall,
                             cpu, got)
                r.requests = len(text.split())  # one -w line per transfer
            fair.record(runs, f"dataload s3 iterable pair {i + 1}", r)
    a, b = runs["ckptbench"][-1], runs[peer][-1]
    PER_SAMPLE.append(
        f"| dataload s3 iterable | requests per shard | "
        f"{a.requests / len(names):.2f} | {b.requests / len(names):.2f} "
        "(curl) |")
    rows += fair.summarize(
        f"dataload s3 iterable, {size // 1024} KiB samples in "
        f"~{shard / fair.MIB:.2g} MiB shards, {workers} in flight", runs)
