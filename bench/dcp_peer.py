#!/usr/bin/env python3
"""The same checkpoint through PyTorch DCP, next to ckptbench's figures.

Reads a ckptbench checkpoint's .metadata (the plan: tensor names, dtypes,
shapes, world size), builds those tensors as FSDP2-style DTensors sharded
on dim 0 over the same world size (gloo on CPU, or CUDA tensors with NCCL),
and times torch.distributed.checkpoint save and load against a directory:
wall time between barriers on every rank, bytes and files on disk. Before
each load the files are evicted from the page cache (posix_fadvise
DONTNEED per file, as ckptbench's fadvise mode does), and saves fsync
(FileSystemWriter sync_files=True), so both tools do the same work.

  torchrun --nproc-per-node=8 bench/dcp_peer.py \\
      --metadata /mnt/ckpt/checkpoints/step-3/.metadata --dir /mnt/dcp
  torchrun --nproc-per-node=1 bench/dcp_peer.py ... --device cuda
  ... --profile      # cProfile of rank 0's first save and load (top 25)

Not a ckptbench dependency and not run in CI: it needs PyTorch >= 2.4
(torch.distributed.checkpoint with DTensor); Debian's python3-torch is
1.13. CI checks only that it compiles and that without such a PyTorch it
says so and exits 2. docs/fidelity.md holds what it measured.
"""

import argparse
import json
import os
import sys
import time

MIB = 1 << 20


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--metadata", required=True,
                    help="a ckptbench step's .metadata")
    ap.add_argument("--dir", required=True,
                    help="where DCP writes (emptied first)")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--thread-count", type=int, default=1,
                    help="FileSystemWriter thread_count (files per rank)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json", help="rank 0 writes the results here")
    return ap.parse_args()


def require_torch():
    """The modules this needs, or exit 2 saying which PyTorch it needs."""
    try:
        import torch
        import torch.distributed as dist
        import torch.distributed.checkpoint as dcp
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor import DTensor, Replicate, Shard
    except Exception as e:  # ImportError, or an old torch's AttributeError
        sys.stderr.write(
            "dcp_peer.py: needs PyTorch >= 2.4 with "
            "torch.distributed.checkpoint and DTensor (Debian's "
            f"python3-torch 1.13 has neither): {e}\n")
        sys.exit(2)
    return torch, dist, dcp, init_device_mesh, DTensor, Replicate, Shard


def read_plan(path):
    try:
        with open(path) as f:
            meta = json.load(f)
        return meta["plan"], meta["tensors"]
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write(f"dcp_peer.py: cannot read {path} as a ckptbench "
                         f".metadata: {e}\n")
        sys.exit(2)


def build_state(torch, mesh, DTensor, Replicate, Shard, tensors, world,
                rank, device):
    """Each tensor sharded on dim 0 (torch.chunk's split, as FSDP2 does);
    0-d tensors replicated. Local shards only: no rank holds a whole
    tensor."""
    # ckptbench's .metadata names dtypes fp32, bf16, ...; torch's names too.
    dtypes = {"float32": torch.float32, "float16": torch.float16,
              "bfloat16": torch.bfloat16, "float64": torch.float64,
              "fp32": torch.float32, "fp16": torch.float16,
              "bf16": torch.bfloat16, "fp64": torch.float64,
              "int64": torch.int64, "int32": torch.int32,
              "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}
    state, nbytes = {}, 0
    for t in tensors:
        dtype = dtypes.get(t["dtype"])
        if dtype is None:
            sys.exit(f"dcp_peer.py: tensor {t['name']}: dtype {t['dtype']} "
                     "not handled")
        shape = list(t["shape"])
        if not shape:
            local = torch.zeros((), dtype=dtype, device=device)
            state[t["name"]] = DTensor.from_local(local, mesh, [Replicate()],
                                                  run_check=False)
            continue
        chunk = -(-shape[0] // world)
        rows = max(0, min(chunk, shape[0] - rank * chunk))
        local = torch.empty([rows] + shape[1:], dtype=dtype, device=device)
        if dtype.is_floating_point:
            local.uniform_()
        elif dtype != torch.bool:
            local.random_(0, 100)
        nbytes += local.numel() * local.element_size()
        state[t["name"]] = DTensor.from_local(
            local, mesh, [Shard(0)], run_check=False,
            shape=torch.Size(shape), stride=torch.empty(shape, device="meta")
            .stride())
    return state, nbytes


def evict(directory):
    for root, _, files in os.walk(directory):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def on_disk(directory):
    total, count = 0, 0
    for root, _, files in os.walk(directory):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
            count += 1
    return total, count


def main():
    args = parse_args()
    plan, tensors = read_plan(args.metadata)
    torch, dist, dcp, init_device_mesh, DTensor, Replicate, Shard = \
        require_torch()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if "MASTER_ADDR" not in os.environ:  # run without torchrun: one rank
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29511",
                          RANK="0", WORLD_SIZE="1")
    if args.device == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl" if args.device == "cuda" else "gloo")
    mesh = init_device_mesh(args.device, (world,))
    if world != plan["world_size"] and rank == 0:
        print(f"note: ckptbench's plan has world size {plan['world_size']}, "
              f"this run {world}", flush=True)
    state, local_bytes = build_state(torch, mesh, DTensor, Replicate, Shard,
                                     tensors, world, rank, args.device)
    total = torch.tensor([local_bytes], dtype=torch.int64,
                         device=args.device)
    dist.all_reduce(total)
    rows = []
    for i in range(args.rounds):
        if rank == 0 and os.path.isdir(args.dir):
            import shutil
            shutil.rmtree(args.dir)
        dist.barrier()
        prof = None
        if args.profile and rank == 0 and i == 0:
            import cProfile
            prof = cProfile.Profile()
            prof.enable()
        t0 = time.monotonic()
        dcp.save(state, storage_writer=dcp.FileSystemWriter(
            args.dir, thread_count=args.thread_count, sync_files=True))
        dist.barrier()
        save_s = time.monotonic() - t0
        if prof:
            prof.disable()
        evict(args.dir)
        dist.barrier()
        if prof:
            prof.enable()
        t0 = time.monotonic()
        dcp.load(state, storage_reader=dcp.FileSystemReader(args.dir))
        if args.device == "cuda":
            torch.cuda.synchronize()
        dist.barrier()
        load_s = time.monotonic() - t0
        if prof:
            import pstats
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        if rank == 0:
            disk, files = on_disk(args.dir)
            row = {"round": i + 1, "save_seconds": save_s,
                   "load_seconds": load_s, "tensor_bytes": int(total.item()),
                   "bytes_on_disk": disk, "files": files,
                   "save_mib_s": total.item() / MIB / save_s,
                   "load_mib_s": total.item() / MIB / load_s}
            rows.append(row)
            print(json.dumps(row), flush=True)
    if rank == 0:
        out = {"tool": "torch.distributed.checkpoint",
               "torch": torch.__version__, "device": args.device,
               "world_size": world, "thread_count": args.thread_count,
               "tensors": len(tensors), "rounds": rows}
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=2)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
