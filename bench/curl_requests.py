"""curl making the same S3 requests as ckptbench: the fair.py s3 suite's
peer for ckptbench's part and range pattern.

Four separate curls each sending a quarter of an object make 4 requests;
ckptbench's save of the same object with 8 MiB parts, 4 in flight, makes a
CreateMultipartUpload, 75 UploadParts and a CompleteMultipartUpload, and
its load 75 ranged GETs. On a server whose cost is per request (Swift's
s3api stores every part as an object of its own, then a manifest), the
request pattern alone moves the rate, whatever the client. This peer makes
ckptbench's requests with curl: the create and the completion as one curl
each, the parts (or ranges) as one `curl -Z --parallel-max N`, one
connection per transfer in flight. Its rate is the bytes over the wall
time of all three from outside (process starts included, a few ms of
seconds); its CPU the three processes'.

curl 7.88 signs a query parameter without a value ("?uploads") wrongly
(SignatureDoesNotMatch), so the create says "?uploads=", which S3 takes as
the same request.
"""

import os
import re
import subprocess
import tempfile
import time


def sigv4_args(user):
    """curl's options for a SigV4-signed request to the suite's Swift.
    curl 7.88 signs no payload hash of its own: UNSIGNED-PAYLOAD, as
    ckptbench's default (s3.payload_signing=unsigned) says."""
    return ["-sS", "--fail", "--aws-sigv4", "aws:amz:us-east-1:s3",
            "--user", user, "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"]


def _run(cmd):
    """(stdout, CPU seconds) of one curl; exits naming it on failure."""
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    p = subprocess.Popen(cmd, stdout=out, stderr=err)
    _, status, ru = os.wait4(p.pid, 0)
    out.seek(0)
    err.seek(0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("curl_requests: curl failed: " +
                         err.read().decode(errors="replace")[-800:])
    return out.read().decode(errors="replace"), ru.ru_utime + ru.ru_stime


def split_parts(obj, directory, part_size):
    """The object's parts as files (untimed: curl -T sends a whole file)."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    with open(obj, "rb") as src:
        while True:
            chunk = src.read(part_size)
            if not chunk:
                break
            p = os.path.join(directory, f"part{len(paths) + 1:05d}")
            with open(p, "wb") as dst:
                dst.write(chunk)
            paths.append(p)
    return paths


def upload(endpoint, user, key, parts, in_flight):
    """A multipart upload of `parts` (files, in order) to bench/key with
    `in_flight` parts at once. Returns (bytes, wall s, CPU s)."""
    url = f"{endpoint}/bench/{key}"
    t0 = time.monotonic()
    text, cpu = _run(["curl"] + sigv4_args(user) + ["-X", "POST",
                                               url + "?uploads="])
    m = re.search(r"<UploadId>([^<]+)</UploadId>", text)
    if not m:
        raise SystemExit("curl_requests: no UploadId in " + text[-300:])
    upload_id = m.group(1)
    cmd = ["curl", "-Z", "--parallel-max", str(in_flight)]
    for n, path in enumerate(parts, 1):
        if n > 1:
            cmd.append("--next")
        cmd += sigv4_args(user) + [
            "-o", "/dev/null", "-w",
            "%{size_upload} %header{etag} %{url}\n", "-T", path,
            f"{url}?partNumber={n}&uploadId={upload_id}"]
    text, more = _run(cmd)
    cpu += more
    etags, sent = {}, 0
    for line in text.splitlines():
        size, etag, part_url = line.split(" ", 2)
        sent += int(float(size))
        etags[int(re.search(r"partNumber=(\d+)", part_url).group(1))] = etag
    want = sum(os.path.getsize(p) for p in parts)
    if sent != want:
        raise SystemExit(f"curl_requests: sent {sent} bytes of {want}")
    if sorted(etags) != list(range(1, len(parts) + 1)) or not all(
            etags.values()):
        raise SystemExit("curl_requests: parts without an ETag: " +
                         text[-300:])
    xml = "<CompleteMultipartUpload>" + "".join(
        f"<Part><PartNumber>{n}</PartNumber><ETag>{etags[n]}</ETag></Part>"
        for n in sorted(etags)) + "</CompleteMultipartUpload>"
    text, more = _run(["curl"] + sigv4_args(user) + [
        "-X", "POST", "-H", "Content-Type: application/xml",
        "--data-binary", xml, f"{url}?uploadId={upload_id}"])
    cpu += more
    if "<Error>" in text:  # S3 may answer 200 with an error in the body
        raise SystemExit("curl_requests: completion failed: " + text[-300:])
    return sent, time.monotonic() - t0, cpu


def download(endpoint, user, key, size, range_size, in_flight):
    """Ranged GETs of range_size over bench/key (size bytes), in_flight at
    once, bodies discarded. Returns (bytes, wall s, CPU s)."""
    url = f"{endpoint}/bench/{key}"
    cmd = ["curl", "-Z", "--parallel-max", str(in_flight)]
    for k, start in enumerate(range(0, size, range_size)):
        if k:
            cmd.append("--next")
        end = min(size, start + range_size) - 1
        cmd += sigv4_args(user) + ["-o", "/dev/null", "-w",
                              "%{size_download}\n", "-r", f"{start}-{end}",
                              url]
    t0 = time.monotonic()
    text, cpu = _run(cmd)
    wall = time.monotonic() - t0
    got = sum(int(float(x)) for x in text.split())
    if got != size:
        raise SystemExit(f"curl_requests: read {got} bytes of {size}")
    return got, wall, cpu
