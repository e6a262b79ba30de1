#!/usr/bin/env python3
"""ckptbench side by side with its peers on the same bytes, fairly.

Each case runs ckptbench and one or more peers on the same bytes, block size
and streams, alternating the order (A B, B A, ...) for --pairs pairs. Every
run starts from the same state: `sync`, the page cache dropped, memory
recorded. Per run it records the tool's own rate (ckptbench's round in
result.json; fio's bw_bytes; curl's time_total), the whole process's wall
time measured from outside, and the CPU seconds of the process tree (the
rusage os.wait4 returns: the process and every child it waited for). The
table gives, per case and peer, the medians, the median ratio with its
spread (min-max over pairs), and CPU seconds per GiB.

  bench/fair.py                      # every suite, 5 pairs, ~3.9 GiB local
  bench/fair.py --suite local --pairs 7 --layers 260 --ranks 2
  bench/fair.py --smoke              # tiny sizes, 1 pair: CI keeps it alive

Suites:
  local  ckptbench NUM_DEVICES=R CKPT_THREAD_COUNT=1 CKPT_BLOCK_SIZE=4MiB,
         direct (CKPT_DIRECT_WRITE/READ=true) and buffered (CKPT_FSYNC=true,
         caches dropped before loads), against fio --bs=4M --numjobs=R
         --ioengine=psync --group_reporting --size=<plan bytes per rank in
         whole 4 MiB blocks>, --direct=1 or --direct=0, writes with
         --end_fsync=1 (ckptbench's saves are durable: an fsync per file);
         writes also against fio --refill_buffers (fresh bytes per write, as
         ckptbench makes). With --elbencho PATH also against elbencho (dir
         mode, one file per thread; loads only: it has no per-file fsync).
  s3     Swift + s3api on loopback (tests/servers/swift_s3.sh), one rank and
         one file: ckptbench with s3.parts_in_flight / s3.ranges_in_flight =
         1 against one curl --aws-sigv4 PUT / ranged GET of the same size;
         N in flight against N curls in parallel, and with 8 MiB parts and
         ranges also against curl making the same requests (multipart
         upload, ranged GETs; bench/curl_requests.py); ckptbench's defaults
         against the AWS CLI (aws s3 cp, its defaults).
  dataload  ckptbench's data loader against fio (local disk, a job per
         directory of sample files; for TAR shards read iterable, a job per
         reader) and curl -Z (S3: a GET per sample, or per shard):
         bench/fair_dataload.py.
  loader ckptbench's data loader beside a real PyTorch DataLoader over the
         same dataset (map-style files, iterable TAR shards; local disk and
         S3 through boto3): bench/fair_loader.py, bench/torch_loader.py.
Needs root (drop_caches), fio, curl, the AWS CLI, Swift and, for the loader
suite, PyTorch and boto3 (scripts/install-deps.sh). Writes the markdown table to --out and stdout.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import curl_requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1 << 20
GIB = 1 << 30
BLOCK = 4 * MIB


class Run:
    """One measured process: its own rate, wall and CPU from outside, and
    for ckptbench the CPU of its timed round alone (result.json)."""

    def __init__(self, tool, rate, wall, cpu, nbytes, round_cpu=None):
        self.tool, self.rate, self.wall, self.cpu, self.bytes = (
            tool, rate, wall, cpu, nbytes)
        self.round_cpu = round_cpu


SETTLE = {"seconds": 10.0}  # --settle


def drop_caches():
    """Nothing dirty, nothing cached (root)."""
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def settle():
    """The same starting state for every run: nothing dirty, nothing
    cached, and the same wait after the drop. The wait matters in VMs: the
    freed memory goes back to the host over a few seconds (free page
    reporting, balloons), a discard-mounted file system trims what the last
    deletions freed, and a run that starts while that is under way pays for
    it in its page-cache copies (buffered writes here ran 1.5x-4x slower
    right after a drop). 3 s proved too short for free page reporting: the
    first save of every pair paid, whichever tool had that slot
    (docs/performance.md, "How it is measured"). Returns MemAvailable in
    MiB."""
    drop_caches()
    time.sleep(SETTLE["seconds"])
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


def measured(cmd, env=None, stdout_path=None):
    """Runs cmd; returns (exit code, wall s, CPU s of the tree, stdout)."""
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    err.seek(0)
    text = out.read().decode(errors="replace")
    if p.returncode != 0:
        sys.stderr.write(" ".join(cmd) + "\n" +
                         err.read().decode(errors="replace")[-2000:])
        raise SystemExit(f"fair.py: {cmd[0]} exited {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime, text


def timed_round(results_dir):
    """(bytes, seconds, CPU seconds) of the timed round in a ckptbench
    result.json."""
    with open(os.path.join(results_dir, "result.json")) as f:
        j = json.load(f)
    rounds = [r for r in j["rounds"] if not r.get("staged")]
    r = rounds[-1]
    if r["status"] != "ok":
        raise SystemExit(f"fair.py: ckptbench round failed: {r.get('error')}")
    cpu = r["cpu"]["user_seconds"] + r["cpu"]["system_seconds"]
    return r["bytes"], r["seconds"], cpu


class Ckptbench:
    def __init__(self, binary, work, env):
        self.binary, self.work, self.env = binary, work, env

    def plan_bytes(self, extra):
        out = subprocess.run([self.binary, "plan"] + extra, check=True,
                             capture_output=True, text=True,
                             env=self.env).stdout
        for line in out.splitlines():
            if line.startswith("bytes"):
                return int(line.split()[1])
        raise SystemExit("fair.py: no bytes line in `ckptbench plan`")

    def run(self, name, phase, dir_path, extra):
        res = os.path.join(self.work, "res")
        shutil.rmtree(res, ignore_errors=True)
        mode = ["CKPT_MODE=save-only", "NUM_SAVE_CALLS=1", "NUM_LOAD_CALLS=0"]
        if phase == "load":
            mode = ["CKPT_MODE=load-only", "NUM_SAVE_CALLS=0",
                    "NUM_LOAD_CALLS=1"]
        env = dict(self.env, CKPT_DIR_PATH=dir_path)
        wall, cpu, _ = measured(
            [self.binary, "run", "-q", "--results-dir", res] + mode + extra,
            env=env)
        nbytes, secs, round_cpu = timed_round(res)
        return Run(name, nbytes / MIB / secs, wall, cpu, nbytes, round_cpu)


def fio(name, directory, rw, size, jobs, extra):
    os.makedirs(directory, exist_ok=True)
    cmd = ["fio", "--name=ckpt", f"--directory={directory}", f"--rw={rw}",
           "--bs=4M", f"--numjobs={jobs}", "--group_reporting",
           f"--size={size}", "--ioengine=psync", "--output-format=json"
           ] + extra
    wall, cpu, text = measured(cmd)
    j = json.loads(text[text.index("{"):])
    job = j["jobs"][0]
    side = job["write" if rw == "write" else "read"]
    nbytes = side["io_bytes"]
    return Run(name, side["bw_bytes"] / MIB, wall, cpu, nbytes)


def elbencho(binary, name, directory, rw, size, jobs, direct):
    """elbencho's dir mode: one file of `size` per thread (r<i>-f0), 4 MiB
    blocks, fresh random bytes per written block (its default
    --blockvarpct=100); its own rate is the phase's bytes/s at the last
    thread's end."""
    os.makedirs(directory, exist_ok=True)
    out = os.path.join(os.path.dirname(directory.rstrip("/")),
                       "elbencho.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [binary, "-w" if rw == "write" else "-r", "-t", str(jobs),
           "-n", "0", "-N", "1", "-s", str(size), "-b", "4M",
           "--jsonfile", out] + (["--direct"] if direct else []) + [directory]
    wall, cpu, _ = measured(cmd)
    with open(out) as f:
        last = json.loads(f.read().splitlines()[-1])["last_done"]
    return Run(name, int(last["bytes/s"]) / MIB, wall, cpu, int(last["bytes"]))


def alternate(pairs, tools):
    """Orders for each pair: forward, then reversed (A B, B A, ...)."""
    for i in range(pairs):
        yield list(tools) if i % 2 == 0 else list(reversed(tools))


def summarize(case, runs, ours="ckptbench"):
    """Rows: one per peer in the case."""
    rows = []
    mine = runs[ours]
    for peer, theirs in runs.items():
        if peer == ours:
            continue
        ratios = [a.rate / b.rate for a, b in zip(mine, theirs)]
        walls = [b.wall / a.wall for a, b in zip(mine, theirs)]
        rows.append({
            "case": case, "peer": peer,
            "ours": statistics.median(r.rate for r in mine),
            "theirs": statistics.median(r.rate for r in theirs),
            "ratio": statistics.median(ratios),
            "lo": min(ratios), "hi": max(ratios),
            "wall_ratio": statistics.median(walls),
            "cpu_ours": statistics.median(r.cpu / (r.bytes / GIB)
                                          for r in mine),
            "cpu_theirs": statistics.median(r.cpu / (r.bytes / GIB)
                                            for r in theirs),
            "cpu_round": statistics.median(r.round_cpu / (r.bytes / GIB)
                                           for r in mine),
            "pairs": len(ratios),
        })
    return rows


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def record(table, label, r, note=""):
    """Keeps run r under its tool and logs it as one line."""
    table[r.tool].append(r)
    log(f"  {label} {r.tool:22s} {r.rate:8.1f} MiB/s  wall {r.wall:6.2f} s"
        f"  cpu {r.cpu:6.2f} s{note}")


def local_suite(args, ck, rows):
    ranks = args.ranks
    plan = ["NUM_LAYERS=%d" % args.layers, "NUM_DEVICES=%d" % ranks,
            "CKPT_THREAD_COUNT=1"]
    total = ck.plan_bytes(plan)
    per_rank = (total // ranks + BLOCK - 1) // BLOCK * BLOCK
    log(f"local: {total} bytes in {ranks} rank(s); fio --size={per_rank}")
    base = plan + ["CKPT_BLOCK_SIZE=4MiB"] + args.ckpt
    work = os.path.join(args.dir, "local")
    for kind in args.kinds:
        if kind == "direct":
            ck_save = base + ["CKPT_DIRECT_WRITE=true", "CKPT_FSYNC=true"]
            ck_load = base + ["CKPT_DIRECT_READ=true"]
        else:
            ck_save = base + ["CKPT_FSYNC=true"]
            ck_load = base
        fio_r = ["--direct=%d" % (kind == "direct")]
        # ckptbench's saves end each file with fsync, direct ones too (a
        # durable save: O_DIRECT bypasses the page cache, not the disk's
        # write cache), so fio's writes do: on a disk whose cache flush is
        # slow, fio's direct writes without it measured 2x ckptbench's rate.
        fio_w = fio_r + ["--end_fsync=1"]
        saves = {"ckptbench": [], "fio": [], "fio --refill_buffers": []}
        loads = {"ckptbench": [], "fio": []}
        if args.elbencho:
            # elbencho has no per-file fsync (its --sync is a phase of its
            # own, outside the write's time), so its saves are not durable
            # ones: it joins the loads only.
            loads["elbencho"] = []
        # Each tool writes into a directory of its own, emptied (before the
        # settle) right before its next save; loads read the pair's save.
        dirs = {t: os.path.join(work, t.replace(" ", "").replace("-", ""))
                for t in {**saves, **loads}}
        # One untimed write and read first: the first buffered run after a
        # stretch of direct ones paid 2-3x for the page cache growing again
        # in this VM, whichever tool it was.
        warm = os.path.join(work, "warmup")
        settle()
        fio("warm-up", warm, "write", per_rank, ranks, fio_w)
        settle()
        fio("warm-up", warm, "read", per_rank, ranks, fio_r)
        shutil.rmtree(warm, ignore_errors=True)
        tools = list(saves) + [t for t in loads if t not in saves]
        for i, order in enumerate(alternate(args.pairs, tools)):
            for tool in order:
                if tool not in saves:
                    continue
                shutil.rmtree(dirs[tool], ignore_errors=True)
                mem = settle()
                if tool == "ckptbench":
                    r = ck.run(tool, "save", dirs[tool], ck_save)
                else:
                    extra = fio_w + (["--refill_buffers"]
                                     if "refill" in tool else [])
                    r = fio(tool, dirs[tool], "write", per_rank, ranks, extra)
                record(saves, f"{kind} save pair {i + 1}", r,
                       f"  (MemAvailable {mem} MiB before)")
            for tool in order:
                if tool not in loads:
                    continue
                mem = settle()
                if tool == "ckptbench":
                    r = ck.run(tool, "load", dirs[tool], ck_load)
                elif tool == "elbencho":
                    if not os.path.isdir(dirs[tool]):  # it saves nothing
                        elbencho(args.elbencho, "prep", dirs[tool], "write",
                                 per_rank, ranks, False)
                        mem = settle()
                    r = elbencho(args.elbencho, tool, dirs[tool], "read",
                                 per_rank, ranks, kind == "direct")
                else:
                    r = fio(tool, dirs[tool], "read", per_rank, ranks, fio_r)
                record(loads, f"{kind} load pair {i + 1}", r,
                       f"  (MemAvailable {mem} MiB before)")
        rows += summarize(f"local {kind} save", saves)
        rows += summarize(f"local {kind} load", loads)
    shutil.rmtree(work, ignore_errors=True)


def free_port_block(n=5):
    """A base port with n consecutive free loopback ports."""
    import random
    for _ in range(100):
        base = random.randint(20000, 32000)
        ok = True
        for p in range(base, base + n):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise SystemExit("fair.py: no free ports")


def curl(endpoint, user, key, put_file=None, byte_range=None):
    """One curl --aws-sigv4 PUT of put_file, or ranged GET, of bench/key."""
    # curl 7.88 signs no payload hash of its own: say UNSIGNED-PAYLOAD, as
    # ckptbench's default (s3.payload_signing=unsigned) does.
    cmd = ["curl"] + curl_requests.sigv4_args(user) + [
           "-o", "/dev/null", "-w",
           "%{size_upload} %{size_download} %{time_total}"]
    if put_file:
        cmd += ["-T", put_file]
    if byte_range:
        cmd += ["-r", byte_range]
    return cmd + [f"{endpoint}/bench/{key}"]


def parallel(name, cmds):
    """Runs the commands at once. The rate is the bytes over the slowest
    curl's own time_total; wall and CPU are the group's, from outside."""
    t0 = time.monotonic()
    procs = []
    for c in cmds:
        out = tempfile.TemporaryFile()
        procs.append((subprocess.Popen(c, stdout=out,
                                       stderr=subprocess.PIPE), out))
    cpu, nbytes, slowest = 0.0, 0, 0.0
    for p, out in procs:
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            raise SystemExit(f"fair.py: curl exited {p.returncode}: "
                             f"{p.stderr.read().decode()[-500:]}")
        cpu += ru.ru_utime + ru.ru_stime
        out.seek(0)
        up, down, total = out.read().decode().split()
        nbytes += int(float(up)) + int(float(down))
        slowest = max(slowest, float(total))
    wall = time.monotonic() - t0
    return Run(name, nbytes / MIB / slowest, wall, cpu, nbytes)


S3_PART = 8 * MIB  # the s3 suite's parts and ranges (ckptbench's default)


def curl_requests_rate(measured_run):
    """Run's (rate, wall, CPU, bytes) from curl_requests' (bytes, wall,
    CPU): the rate over the wall time of all its curls."""
    nbytes, wall, cpu = measured_run
    return nbytes / MIB / wall, wall, cpu, nbytes


def s3_suite(args, ck, rows, cases=("checkpoint",)):
    work = os.path.join(args.dir, "s3")
    shm = tempfile.mkdtemp(prefix="ckptbench-fair.", dir="/dev/shm")
    swift = os.path.join(work, "swift")
    os.makedirs(swift, exist_ok=True)
    port = free_port_block()
    key, secret = "benchkey", "benchsecret"
    env = dict(os.environ, S3_ACCESS_KEY=key, S3_SECRET_KEY=secret)
    server = os.path.join(ROOT, "tests/servers/swift_s3.sh")
    subprocess.run(["bash", server, "start", swift, str(port)], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    try:
        endpoint = f"http://127.0.0.1:{port}"
        user = f"{key}:{secret}"
        aws_home = os.path.join(work, "home")
        os.makedirs(aws_home, exist_ok=True)
        ck.env = dict(ck.env, AWS_ACCESS_KEY_ID=key,
                      AWS_SECRET_ACCESS_KEY=secret,
                      AWS_ENDPOINT_URL_S3=endpoint, AWS_REGION="us-east-1",
                      AWS_DEFAULT_REGION="us-east-1",
                      AWS_EC2_METADATA_DISABLED="true", HOME=aws_home)
        for _ in range(30):
            made = subprocess.run(
                ["curl", "-sS", "--fail", "-X", "PUT", "--aws-sigv4",
                 "aws:amz:us-east-1:s3", "--user", user, "-H",
                 "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                 f"{endpoint}/bench"], capture_output=True)
            if made.returncode == 0:
                break
            time.sleep(1)
        else:
            raise SystemExit("fair.py: could not create the bucket: " +
                             made.stderr.decode()[-500:])
        if "dataload" in cases:
            import fair_dataload
            fair_dataload.s3_case(args, ck, rows, endpoint, user, work)
            fair_dataload.s3_iterable_case(args, ck, rows, endpoint, user,
                                           work)
        if "loader" in cases:
            import fair_loader
            fair_loader.s3_cases(args, ck, rows, endpoint)
        if "checkpoint" not in cases:
            return
        plan = ["NUM_LAYERS=%d" % args.s3_layers, "NUM_DEVICES=1",
                "CKPT_THREAD_COUNT=1"]
        size = ck.plan_bytes(plan)
        obj = os.path.join(shm, "obj")
        with open(obj, "wb") as f:  # the bytes a peer sends (untimed)
            f.write(os.urandom(size))
        log(f"s3: one object of {size} bytes; Swift on 127.0.0.1:{port}")
        # (streams, ckptbench request shape): its own defaults of 8 MiB parts
        # and ranges, and, at one stream, one PUT and one GET of the whole
        # object, request for request what the single curl does.
        variants = [(n, "8 MiB parts/ranges") for n in args.streams]
        if size < 5 * GIB:  # S3's largest single PUT (s3.multipart_threshold)
            variants.insert(1, (1, "one PUT/GET"))
        else:
            log("s3: no one-PUT case: the object is past S3's 5 GiB single PUT")
        # curl making ckptbench's own requests (bench/curl_requests.py):
        # beside the whole-object curls for the part/range shape.
        parts = curl_requests.split_parts(obj, os.path.join(shm, "parts"),
                                          S3_PART)
        for n, shape in variants:
            peer = "curl" if n == 1 else f"{n} curls"
            same = "curl -Z, the same requests"
            tools = [peer] if shape == "one PUT/GET" else [peer, same]
            saves = {t: [] for t in ["ckptbench"] + tools}
            loads = {t: [] for t in ["ckptbench"] + tools}
            part = (size + n - 1) // n
            pieces = []
            for k in range(n):  # n PUTs of size/n each
                p = os.path.join(shm, f"piece{k}")
                with open(obj, "rb") as src, open(p, "wb") as dst:
                    src.seek(k * part)
                    dst.write(src.read(part))
                pieces.append(p)
            ranges = [f"{k * part}-{min(size, (k + 1) * part) - 1}"
                      for k in range(n)]
            flags = [f"s3.parts_in_flight={n}", f"s3.ranges_in_flight={n}",
                     f"s3.part_size={S3_PART}", f"s3.range_size={S3_PART}"]
            if shape == "one PUT/GET":
                flags[-1] = f"s3.range_size={size}"
                flags.append(f"s3.multipart_threshold={size + 1}")
            for i, order in enumerate(alternate(args.pairs, list(saves))):
                ck_dir = f"s3://bench/ck{n}{shape[0]}-{i}"
                whole = f"whole{n}{shape[0]}-{i}"  # what the n ranged GETs read
                subprocess.run(curl(endpoint, user, whole, put_file=obj),
                               check=True, capture_output=True)
                for phase, table in (("save", saves), ("load", loads)):
                    for tool in order:
                        settle()
                        if tool == "ckptbench":
                            r = ck.run(tool, phase, ck_dir, plan + flags)
                        elif tool == same and phase == "save":
                            r = Run(tool, *curl_requests_rate(
                                curl_requests.upload(
                                    endpoint, user, f"same{n}-{i}", parts,
                                    n)))
                        elif tool == same:
                            r = Run(tool, *curl_requests_rate(
                                curl_requests.download(
                                    endpoint, user, f"same{n}-{i}", size,
                                    S3_PART, n)))
                        elif phase == "save":
                            r = parallel(tool, [
                                curl(endpoint, user, f"peer{n}{shape[0]}-{i}-{k}",
                                     put_file=pieces[k]) for k in range(n)])
                        else:
                            r = parallel(tool, [
                                curl(endpoint, user, whole, byte_range=rg)
                                for rg in ranges])
                        record(table, f"s3 {phase} {n} in flight, {shape}, "
                               f"pair {i + 1}", r)
            rows += summarize(f"s3 save, {n} in flight, {shape}", saves)
            rows += summarize(f"s3 load, {n} in flight, {shape}", loads)
        # ckptbench's defaults against the AWS CLI's (its rate: wall time).
        saves = {"ckptbench": [], "aws s3 cp": []}
        loads = {"ckptbench": [], "aws s3 cp": []}
        for i, order in enumerate(alternate(args.pairs, list(saves))):
            ck_dir = f"s3://bench/ckdef-{i}"
            for phase, table in (("save", saves), ("load", loads)):
                for tool in order:
                    settle()
                    if tool == "ckptbench":
                        r = ck.run(tool, phase, ck_dir, plan)
                    else:
                        src, dst = obj, f"s3://bench/aws-{i}"
                        if phase == "load":
                            src, dst = dst, os.path.join(shm, "down")
                        wall, cpu, _ = measured(
                            ["aws", "--endpoint-url", endpoint, "s3", "cp",
                             "--only-show-errors", src, dst], env=ck.env)
                        r = Run(tool, size / MIB / wall, wall, cpu, size)
                        if phase == "load":
                            os.remove(dst)
                    record(table, f"s3 {phase} defaults pair {i + 1}", r)
        rows += summarize("s3 save, defaults", saves)
        rows += summarize("s3 load, defaults", loads)
    finally:
        subprocess.run(["bash", server, "stop", swift])
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def table(rows):
    out = ["| case | peer | ckptbench MiB/s | peer MiB/s | ratio (median) "
           "| spread | wall ratio | CPU s/GiB ckptbench (its round) "
           "| CPU s/GiB peer | CPU ratio | pairs |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(
            f"| {r['case']} | {r['peer']} | {r['ours']:.1f} | "
            f"{r['theirs']:.1f} | {r['ratio']:.2f}x | "
            f"{r['lo']:.2f}-{r['hi']:.2f} | {r['wall_ratio']:.2f}x | "
            f"{r['cpu_ours']:.2f} ({r['cpu_round']:.2f}) | "
            f"{r['cpu_theirs']:.2f} | "
            f"{r['cpu_ours'] / max(r['cpu_theirs'], 1e-9):.2f}x | "
            f"{r['pairs']} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite",
                    choices=["local", "s3", "dataload", "loader", "all"],
                    default="all")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--layers", type=int, default=520,
                    help="transformer NUM_LAYERS for local (520: 3.9 GiB)")
    ap.add_argument("--s3-layers", type=int, default=60,
                    help="NUM_LAYERS for the S3 object (60: ~600 MiB)")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--kinds", nargs="+", choices=["direct", "buffered"],
                    default=["direct", "buffered"], help="local I/O kinds")
    ap.add_argument("--ckpt", nargs="*", default=[], metavar="KEY=VALUE",
                    help="more settings for ckptbench's local runs, e.g. "
                    "io.queue_depth=0")
    ap.add_argument("--streams", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--dl-samples", type=int, default=20000,
                    help="dataload: sample files in the dataset")
    ap.add_argument("--dl-s3-samples", type=int, default=2000,
                    help="dataload: sample objects on S3 (Swift on loopback "
                    "answers a few hundred GETs a second here)")
    ap.add_argument("--dl-sample-bytes", type=int, default=64 * 1024,
                    help="dataload: each sample's size (fio's --bs)")
    ap.add_argument("--dl-workers", type=int, default=4,
                    help="dataload: workers per rank (readers per rank)")
    ap.add_argument("--dir", default="/var/tmp/ckptbench-fair")
    ap.add_argument("--bin", default=os.environ.get(
        "CKPTBENCH_BIN", os.path.join(ROOT, "build/ckptbench")))
    ap.add_argument("--settle", type=float, default=SETTLE["seconds"],
                    help="seconds to wait after each cache drop")
    ap.add_argument("--elbencho", metavar="PATH",
                    default=os.environ.get("ELBENCHO"),
                    help="an elbencho binary: local suite peer too "
                    "(docs/performance.md says how it was built)")
    ap.add_argument("--out", help="also write the table here")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny sizes, 1 pair: checks the script runs")
    args = ap.parse_args()
    SETTLE["seconds"] = args.settle
    if args.smoke:
        args.pairs, args.layers, args.s3_layers = 1, 2, 2
        args.streams = [1, 2]
        args.dl_samples, args.dl_sample_bytes, args.dl_workers = 400, 16384, 2
        args.dl_s3_samples = 200
        SETTLE["seconds"] = 0
    if os.geteuid() != 0:
        raise SystemExit("fair.py: needs root to drop the page cache "
                         "between runs (every run starts cold)")
    for tool in ("fio", "curl", "aws"):
        if shutil.which(tool) is None:
            raise SystemExit(f"fair.py: {tool} missing: "
                             "bash scripts/install-deps.sh")
    if args.suite in ("loader", "all"):
        import fair_loader
        fair_loader.torch_python()  # says what is missing before any run
    os.makedirs(args.dir, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CKPT_", "NUM_", "AWS_"))}
    ck = Ckptbench(args.bin, args.dir, env)
    rows = []
    t0 = time.monotonic()
    try:
        if args.suite in ("local", "all"):
            local_suite(args, ck, rows)
        if args.suite in ("dataload", "all"):
            import fair_dataload
            fair_dataload.local_case(args, ck, rows)
            fair_dataload.local_iterable_case(args, ck, rows)
        if args.suite in ("loader", "all"):
            import fair_loader
            fair_loader.local_cases(args, ck, rows)
        s3_cases = {"s3": ("checkpoint",), "dataload": ("dataload",),
                    "loader": ("loader",),
                    "all": ("checkpoint", "dataload", "loader")
                    }.get(args.suite)
        if s3_cases:
            s3_suite(args, ck, rows, s3_cases)
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)
    text = table(rows)
    if "fair_dataload" in sys.modules:
        text += sys.modules["fair_dataload"].per_sample_table()
    if "fair_loader" in sys.modules:
        text += sys.modules["fair_loader"].first_batch_table()
    text += (f"\n{args.pairs} pair(s) per case, {time.monotonic() - t0:.0f} s"
             f"; {os.cpu_count()} CPUs; ckptbench {args.bin}\n")
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    # bench/fair_dataload.py imports this module as `fair`: the same one.
    sys.modules.setdefault("fair", sys.modules["__main__"])
    main()
