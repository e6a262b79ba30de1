#!/usr/bin/python3
"""Checks what conf/dataloading-checkpoints.yaml left in a results directory
when the compose profile `dataloading` or the JobSet overlay of that name ran
it: the dataset made first by datagen on every node, then one run per point
(sync, async), each an epoch that read every sample once on every node with
checkpoints saved during it, on the storage named.
usage: check_dataloading.py DIR NODES STORAGE [HOST...]
(HOSTs: the nodes' host names, in index order, when the caller knows them.)
Prints one line per run; exits non-zero naming the first thing wrong."""
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def main(argv):
    d, nodes, storage, hosts = argv[0], int(argv[1]), argv[2], argv[3:]
    sweep = load(os.path.join(d, "sweep.json"))
    names = [r["name"] for r in sweep["runs"]]
    assert names == ["000-run.async=false", "001-run.async=true"], names
    prepared = os.listdir(os.path.join(d, "prepare"))
    assert prepared == [names[0]], f"datagen ran for {prepared}, expected once, first"
    gen = load(os.path.join(d, "prepare", names[0], "result.json"))
    assert (gen["workload"], gen["status"]) == ("datagen", "ok"), (gen["workload"], gen["status"], gen["errors"])
    assert {len(r["nodes"]) for r in gen["rounds"]} == {nodes}, "datagen did not run on every node"
    dataset = gen["config"]["dataset.path"]["value"]
    for name in names:
        j = load(os.path.join(d, name, "result.json"))
        where = f"{name}: "
        assert j["status"] == "ok", where + f"status {j['status']}: {j['errors']}"
        assert j["workload"] == "dataload", where + j["workload"]
        assert j["environment"]["storage"] == storage, where + j["environment"]["storage"]
        assert j["config"]["dataset.path"]["value"] == dataset, where + "another dataset than datagen's"
        assert {len(r["nodes"]) for r in j["rounds"]} == {nodes}, where + "a round lacked nodes"
        if hosts:
            seen = sorted({n["host"] for r in j["rounds"] for n in r["nodes"]})
            assert seen == sorted(hosts), where + f"nodes are {seen}"
        epoch = j["rounds"][0]["epoch"]
        assert epoch["each_sample_once"], where + "the epoch did not read each sample once"
        saves = epoch.get("checkpoints", {}).get("saves", [])
        rounds = [r for r in j["rounds"] if r["phase"] == "save"]
        assert saves, where + "no checkpoint during the epoch"
        assert len(rounds) == len(saves), where + f"{len(rounds)} save rounds for {len(saves)} saves"
        assert all(r["status"] == "ok" for r in rounds), where + "a save round failed"
        held = [s["blocked_seconds"] / s["window_seconds"] for s in saves]
        if name.endswith("async=false"):
            # A sync save holds the ranks its whole window: nothing read.
            assert all(h > 0.99 for h in held), where + f"ranks held {held} of the windows"
            assert all(s["window_samples"] == 0 for s in saves), where + "samples read while held"
        else:
            # An async save holds them for its staging only; the epoch goes
            # on in the rest of its window.
            assert all(h < 1 for h in held), where + f"ranks held {held} of the windows"
            blocked = sum(s["blocked_seconds"] for s in saves)
            window = sum(s["window_seconds"] for s in saves)
            assert blocked < 0.9 * window, where + f"ranks held {blocked:.3f} of {window:.3f} s"
            assert sum(s["window_samples"] for s in saves) > 0, where + "nothing read in the windows"
        print(f"   {name}: {epoch['samples']} samples at {epoch['samples_per_second']:.0f}/s, "
              f"{len(saves)} save(s), ranks held "
              + ", ".join(f"{s['blocked_seconds']:.3f} of {s['window_seconds']:.3f} s" for s in saves))
    assert os.path.exists(os.path.join(d, "report.html")), "no report.html"


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except AssertionError as e:
        sys.exit(f"{sys.argv[1]}: {e}")
