#!/usr/bin/env python3
"""One epoch of a real PyTorch DataLoader over a dataset `ckptbench datagen`
made: the peer of ckptbench's data loader in bench/fair_loader.py.

  python3 bench/torch_loader.py --root /var/tmp/data --format files \\
      --access map --ranks 2 --workers 8 --batch 32
  python3 bench/torch_loader.py --root s3://bench/data --endpoint URL ...

It reads the same samples in the same way ckptbench's loader does, with
torch.utils.data as a training job uses it:
  map       a Dataset whose __getitem__ reads one sample (a file read whole,
            or a TAR member's bytes as one ranged read of its shard), in
            DistributedSampler's order (shuffled by --seed, drop_last);
            on S3 one boto3 get_object per sample, a client per worker, as
            the baseline of AWS's "Training in PyTorch from Amazon S3" does.
  iterable  an IterableDataset as WebDataset runs one (written here: Debian
            has no webdataset): the objects (TAR shards, or sample files)
            shuffled by --seed, split by node then by worker (rank r takes
            objects r, r + world, ...; worker w every W-th of those), each
            streamed whole (tarfile's stream mode for shards) through a
            shuffle buffer of --shuffle-buffer samples.
Each sample becomes a uint8 tensor of its bytes and an int label (a shard's
.cls member; a file's sample number), batched by the DataLoader's default
collate (--batch, --workers, --prefetch). Nothing is verified: the bytes are
not compared with the generator's, which ckptbench does for every sample.

The listing (or, for map-style TAR, the members' index, read from the
shards' headers) is made before the epoch, untimed, as a Dataset's
constructor makes it. Ranks are processes started together (a barrier);
the epoch's time runs from the first rank's start to the last rank's last
batch, and includes the workers' start, as the first batch of a real job
does. Prints one JSON object: samples, sample_bytes (the samples' own
bytes, a shard's headers not counted), seconds, first_batch_seconds (the
slowest rank's), first_batch_samples (every rank's first batch),
first_batch (the slowest rank's first batch in parts that add up to it:
rank_start, its process's start after the first rank's; worker_start, from
the epoch's start to the worker process that made it running, fork and
worker init; client_seconds, that worker making its boto3 client (S3; TCP
connects come with its first request, in reads); reads, the rest of its
time to the batch collated; handoff, from the worker's collate to the
batch in the rank's loop: pickling, the queue, pinning; dataset_seconds,
before the epoch: the listing or index), and per rank the same.
"""

import argparse
import json
import multiprocessing as mp
import os
import queue
import random
import sys
import tarfile
import time
import warnings

from fair import drop_caches  # this directory's bench/fair.py

try:
    import torch
    from torch.utils.data import (DataLoader, Dataset, DistributedSampler,
                                  IterableDataset, get_worker_info)
    from torch.utils.data.dataloader import default_collate
except ImportError as e:
    raise SystemExit("torch_loader.py: needs PyTorch (Debian: apt-get "
                     f"install python3-torch): {e}")


# This process's, as a DataLoader worker: when it started (worker_init_fn)
# and the seconds its S3 client took to make (CLOCK_MONOTONIC, which every
# process on the machine shares).
WORKER = {"start": None, "client_seconds": 0.0}


def worker_started(_):
    WORKER["start"] = time.monotonic()


def stamped_collate(items):
    """The default collate, and when and by which worker it was made, so
    the rank can take its first batch apart."""
    info = get_worker_info()
    data, labels = default_collate(items)
    return data, labels, {"worker": info.id if info else 0,
                          "start": WORKER["start"],
                          "client_seconds": WORKER["client_seconds"],
                          "collated": time.monotonic()}


class Store:
    """A local directory or an S3 prefix; on S3 a boto3 client per process
    (made on first use, so each DataLoader worker has its own)."""

    def __init__(self, root, endpoint):
        self.root, self.endpoint = root.rstrip("/"), endpoint
        self.s3 = root.startswith("s3://")
        if self.s3:
            self.bucket, _, self.prefix = root[5:].partition("/")
            self.prefix = self.prefix.strip("/")
        self._client, self._pid = None, None

    def client(self):
        if self._client is None or self._pid != os.getpid():
            t0 = time.monotonic()
            import boto3
            from botocore.config import Config
            self._client = boto3.session.Session().client(
                "s3", endpoint_url=self.endpoint,
                config=Config(s3={"addressing_style": "path"},
                              retries={"max_attempts": 3}))
            self._pid = os.getpid()
            WORKER["client_seconds"] += time.monotonic() - t0
        return self._client

    def key(self, name):
        return f"{self.prefix}/{name}" if self.prefix else name

    def list(self, under):
        """Names (relative to the root) under a folder, sorted."""
        if not self.s3:
            top = os.path.join(self.root, under)
            out = []
            for d, _, files in os.walk(top):
                out += [os.path.relpath(os.path.join(d, f), self.root)
                        for f in files]
            return sorted(out)
        pages = self.client().get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.key(under) + "/")
        cut = len(self.prefix) + 1 if self.prefix else 0
        return sorted(o["Key"][cut:] for p in pages
                      for o in p.get("Contents", []))

    def read(self, name, start=None, end=None):
        """A whole object, or its bytes [start, end)."""
        if self.s3:
            kw = {} if start is None else {"Range": f"bytes={start}-{end - 1}"}
            return self.client().get_object(
                Bucket=self.bucket, Key=self.key(name), **kw)["Body"].read()
        with open(os.path.join(self.root, name), "rb") as f:
            if start is None:
                return f.read()
            f.seek(start)
            return f.read(end - start)

    def stream(self, name):
        if self.s3:
            return self.client().get_object(
                Bucket=self.bucket, Key=self.key(name))["Body"]
        return open(os.path.join(self.root, name), "rb")


def sample_number(name):
    """s0000000042.jpg -> 42."""
    return int(os.path.basename(name).split(".")[0][1:])


def as_sample(data, label):
    # The bytes as they were read, not copied again (torch warns that they
    # are read-only; nothing writes to them).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.frombuffer(data, dtype=torch.uint8), label


def tar_index(store, shards):
    """Per sample (its shard, the .jpg data's start, the .cls data's end,
    the .jpg's size, where the .cls data starts in that run), from the
    shards' headers: a user's map-style TAR dataset builds this once. It
    streams each shard whole (on S3, downloads it), so the caller drops the
    page cache after it (--drop-caches) before the epoch."""
    index = []
    for shard in shards:
        stream = store.stream(shard)
        with tarfile.open(fileobj=stream, mode="r|") as tf:
            members = {}
            for m in tf:
                key, _, ext = m.name.rpartition(".")
                members.setdefault(key, {})[ext] = m
            for key in sorted(members):
                jpg, cls = members[key]["jpg"], members[key]["cls"]
                index.append((shard, jpg.offset_data,
                              cls.offset_data + cls.size, jpg.size,
                              cls.offset_data - jpg.offset_data))
        stream.close()
    return index


class MapStyle(Dataset):
    """A sample per item: a file's name (MapFiles) or a TAR member's place
    (MapTar)."""

    def __init__(self, store, items):
        self.store, self.items = store, items

    def __len__(self):
        return len(self.items)


class MapFiles(MapStyle):
    def __getitem__(self, i):
        name = self.items[i]
        return as_sample(self.store.read(name), sample_number(name))


class MapTar(MapStyle):
    def __getitem__(self, i):
        shard, start, end, size, cls_at = self.items[i]
        run = self.store.read(shard, start, end)
        return as_sample(run[:size], int(run[cls_at:]))


class Iterable(IterableDataset):
    """WebDataset's split_by_node, split_by_worker, tar streaming and
    shuffle(K)."""

    def __init__(self, store, objects, tar, rank, world, seed, buffer):
        self.store, self.objects, self.tar = store, objects, tar
        self.rank, self.world, self.seed = rank, world, seed
        self.buffer = buffer

    def samples(self, name):
        if not self.tar:
            yield as_sample(self.store.read(name), sample_number(name))
            return
        stream = self.store.stream(name)
        with tarfile.open(fileobj=stream, mode="r|") as tf:
            key, data = None, None
            for m in tf:
                k, _, ext = m.name.rpartition(".")
                body = tf.extractfile(m).read()
                if ext == "jpg":
                    key, data = k, body
                elif ext == "cls" and k == key:
                    yield as_sample(data, int(body))
        stream.close()

    def __iter__(self):
        info = get_worker_info()
        w, workers = (info.id, info.num_workers) if info else (0, 1)
        objects = list(self.objects)
        random.Random(self.seed).shuffle(objects)
        mine = objects[self.rank::self.world][w::workers]
        rng = random.Random(self.seed * 7919 + self.rank * workers + w)
        buf = []
        for name in mine:
            for s in self.samples(name):
                if len(buf) < self.buffer:
                    buf.append(s)
                    continue
                i = rng.randrange(len(buf))
                buf[i], s = s, buf[i]
                yield s
        rng.shuffle(buf)
        yield from buf


def dataset_for(args, store, rank):
    if args.format == "tar":
        objects = [n for n in store.list("shards") if n.endswith(".tar")]
    else:
        objects = store.list("samples")
    if not objects:
        raise SystemExit(f"torch_loader.py: no {args.format} objects under "
                         f"{args.root}")
    if args.access == "iterable":
        return Iterable(store, objects, args.format == "tar", rank,
                        args.ranks, args.seed, args.shuffle_buffer), None
    ds = (MapTar(store, tar_index(store, objects)) if args.format == "tar"
          else MapFiles(store, objects))
    sampler = DistributedSampler(ds, num_replicas=args.ranks, rank=rank,
                                 shuffle=True, seed=args.seed, drop_last=True)
    sampler.set_epoch(0)
    return ds, sampler


def first_parts(t0, got, stamp):
    """The first batch's parts (seconds), from its worker's stamp."""
    start = min(max(stamp["start"] or t0, t0), stamp["collated"])
    client = min(stamp["client_seconds"], stamp["collated"] - start)
    return {"worker": stamp["worker"], "worker_start": start - t0,
            "client_seconds": client,
            "reads": stamp["collated"] - start - client,
            "handoff": max(0.0, got - stamp["collated"])}


def rank_main(args, rank, ready, go, out):
    torch.set_num_threads(1)
    store = Store(args.root, args.endpoint)
    listed = time.monotonic()
    ds, sampler = dataset_for(args, store, rank)
    dataset_seconds = time.monotonic() - listed
    WORKER["client_seconds"] = 0.0  # the listing's client is the rank's
    loader = DataLoader(ds, batch_size=args.batch, sampler=sampler,
                        num_workers=args.workers,
                        prefetch_factor=args.prefetch,
                        worker_init_fn=worker_started,
                        collate_fn=stamped_collate)
    ready.put(rank)
    go.wait()
    t0 = time.monotonic()
    samples, nbytes, first, first_samples, parts = 0, 0, None, 0, None
    for data, labels, stamp in loader:
        if first is None:
            got = time.monotonic()
            first, first_samples = got - t0, len(labels)
            parts = first_parts(t0, got, stamp)
        samples += len(labels)
        nbytes += data.numel()
    if first is None:
        raise SystemExit(f"torch_loader.py: rank {rank} got no batch")
    parts["dataset_seconds"] = dataset_seconds
    out.put({"rank": rank, "start": t0, "end": time.monotonic(),
             "samples": samples, "sample_bytes": nbytes,
             "first_batch_seconds": first,
             "first_batch_samples": first_samples, "first_batch": parts})


def gather(procs, q, what, limit):
    """One item per process from q; fails (naming `what`) as soon as a
    process has ended without giving one, or after `limit` seconds."""
    got, deadline = [], time.monotonic() + limit
    while len(got) < len(procs):
        try:
            got.append(q.get(timeout=0.5))
            continue
        except queue.Empty:
            pass
        if time.monotonic() > deadline or any(
                p.exitcode not in (None, 0) for p in procs):
            raise SystemExit(f"torch_loader.py: a rank failed {what}")
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True,
                    help="the dataset's directory, or s3://bucket/prefix")
    ap.add_argument("--endpoint", help="S3 endpoint URL (boto3's)")
    ap.add_argument("--format", choices=["files", "tar"], required=True)
    ap.add_argument("--access", choices=["map", "iterable"], required=True)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--shuffle-buffer", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--drop-caches", action="store_true",
                    help="drop the page cache (root) once every rank has "
                    "its listing or index, right before the epoch")
    args = ap.parse_args()
    ctx = mp.get_context("fork")
    ready, out, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    # Not daemons (those may not start DataLoader workers): a failure
    # terminates the ranks left.
    procs = [ctx.Process(target=rank_main, args=(args, r, ready, go, out))
             for r in range(args.ranks)]
    for p in procs:
        p.start()
    try:
        gather(procs, ready, "before the epoch", 600)
        if args.drop_caches:
            drop_caches()
        go.set()
        ranks = gather(procs, out, "in the epoch", 3600)
    except BaseException:
        for p in procs:
            p.terminate()
        raise
    for p in procs:
        p.join(timeout=60)
    ranks.sort(key=lambda r: r["rank"])
    start = min(r["start"] for r in ranks)
    slowest = max(ranks, key=lambda r: r["start"] + r["first_batch_seconds"])
    parts = dict(slowest["first_batch"], rank=slowest["rank"],
                 rank_start=slowest["start"] - start)
    json.dump({
        "samples": sum(r["samples"] for r in ranks),
        "sample_bytes": sum(r["sample_bytes"] for r in ranks),
        "seconds": max(r["end"] for r in ranks) - start,
        "first_batch_seconds": max(r["start"] - start +
                                   r["first_batch_seconds"] for r in ranks),
        "first_batch_samples": sum(r["first_batch_samples"] for r in ranks),
        "first_batch": parts,
        "ranks": ranks,
    }, sys.stdout)
    print()


if __name__ == "__main__":
    main()
