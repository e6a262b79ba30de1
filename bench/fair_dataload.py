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
Per sample, bytes are the same on both sides, so the MiB/s ratio is the
samples/s ratio.
"""

import json
import os
import shutil
import subprocess

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


def ckpt_epoch(ck, name, uri, samples, sample_bytes, prefixes, ranks,
               workers):
    res = os.path.join(ck.work, "res")
    shutil.rmtree(res, ignore_errors=True)
    wall, cpu, _ = fair.measured(
        [ck.binary, "run", "-q", "--results-dir", res,
         "CKPT_WORKLOAD=dataload", f"CKPT_DATASET_PATH={uri}",
         "CKPT_DATASET_FORMAT=files", f"CKPT_DATASET_SAMPLES={samples}",
         f"CKPT_SAMPLE_BYTES={sample_bytes}", "CKPT_SAMPLE_SPREAD=0",
         f"CKPT_DATASET_SPREAD_PREFIXES={prefixes}", f"NUM_DEVICES={ranks}",
         f"CKPT_NUM_WORKERS={workers}", "CKPT_BATCH_SIZE=32",
         "CKPT_EPOCHS=1", "CKPT_COMPUTE_TIME=0"], env=ck.env)
    with open(os.path.join(res, "result.json")) as f:
        epoch = json.load(f)["rounds"][-1]["epoch"]
    if not epoch["each_sample_once"]:
        raise SystemExit("fair.py: ckptbench's epoch did not read every "
                         "sample once")
    nbytes, secs, round_cpu = fair.timed_round(res)
    return fair.Run(name, nbytes / fair.MIB / secs, wall, cpu, nbytes,
                    round_cpu)


def fio_dirs(name, root, prefixes, sample_bytes):
    """One fio job per prefix directory, each reading its files whole."""
    cmd = ["fio", "--rw=read", f"--bs={sample_bytes}", "--ioengine=psync",
           "--file_service_type=sequential", "--group_reporting",
           "--output-format=json"]
    for p in range(prefixes):
        cmd += [f"--name=d{p:02x}", f"--opendir={root}/samples/{p:02x}"]
    wall, cpu, text = fair.measured(cmd)
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
                cmd = ["curl", "-sS", "--fail", "-Z", "--parallel-max",
                       str(workers), "--aws-sigv4", "aws:amz:us-east-1:s3",
                       "--user", user, "-H",
                       "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-w",
                       "%{size_download}\\n", "--config", config]
                wall, cpu, text = fair.measured(cmd)
                got = sum(int(x) for x in text.split())
                if got != samples * size:
                    raise SystemExit(f"fair.py: curl read {got} bytes, "
                                     f"expected {samples * size}")
                r = fair.Run(tool, got / fair.MIB / wall, wall, cpu, got)
            fair.record(runs, f"dataload s3 pair {i + 1}", r)
    rows += fair.summarize(
        f"dataload s3, {size // 1024} KiB samples, {workers} in flight",
        runs)
