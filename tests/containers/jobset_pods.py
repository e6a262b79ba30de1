#!/usr/bin/python3
"""The pods a JobSet's controllers would create, for `podman kube play`.

Reads `kubectl kustomize` output and writes, into OUTDIR:
  configmap-NAME.yaml  each ConfigMap (podman 4.3 reads one per file), with
                    KEY=VALUE overrides applied to
                    ckptbench-config (the test may change sizes and timeouts)
  secret-NAME.yaml  each Secret, as `podman kube play` takes it
  pod-HOST.yaml     one Pod per (replicatedJob, job, completion index)
  pods.tsv          HOST  IP  REPLICATED_JOB  CONTAINERS  PROBE_PORTS
                    (comma-separated; PROBE_PORTS: the gRPC readiness and
                    liveness probes' ports, "-" if none)
What the JobSet and Job controllers add (the JobSet controller's
pkg/controllers/jobset_controller.go, kubernetes-sigs/jobset): hostname
<js>-<rj>-<jobIdx>-<podIdx>, subdomain (network.subdomain, else the JobSet's
name), the jobset.sigs.k8s.io/* labels and annotations (jobset-uid: a new
uid per JobSet, written to OUTDIR/jobset-uid; coordinator, where
spec.coordinator is set: <js>-<rj>-<jobIdx>-<podIdx>.<subdomain>), the
batch.kubernetes.io/job-completion-index label and annotation, and the env
var JOB_COMPLETION_INDEX. The headless Service's names (<host>.<subdomain>)
become hostAliases to fixed addresses on the test's network.

Where podman 4.3 differs from a kubelet, the pods are changed here, never in
the manifests:
  - containerPort is published on the host by podman (two pods would
    collide; Kubernetes publishes nothing without hostPort): dropped;
  - an emptyDir is one named volume shared by every pod that names it:
    each pod gets its own claim, named <host>-<volume>;
  - hostPath: each pod is on a Kubernetes node of its own (the required
    anti-affinity), so each gets its own host directory under HOSTROOT;
  - extra host names (NAME=IP, --alias) are added to every pod's hostAliases
    (an endpoint name the manifests use for a server outside the cluster).
Pods get the addresses SUBNET_PREFIX.FIRST, .FIRST+1, ... (a caller playing
several JobSets one after another gives each its own, so that no address
is reused while the host still remembers the previous pod's).
A JobSet restarted as a whole (failurePolicy) keeps its uid, and its new
pods carry restart-attempt N: --uid UID --restart-attempt N.
usage: jobset_pods.py RENDERED OUTDIR SUBNET_PREFIX FIRST HOSTROOT [--alias N=IP]...
                      [--uid UID] [--restart-attempt N] [K=V]...
"""
import copy
import hashlib
import sys
import uuid

import yaml


def main(argv):
    src, out, prefix, first, hostroot, *rest = argv
    aliases, overrides, uid, attempt = [], [], str(uuid.uuid4()), "0"
    while rest:
        a = rest.pop(0)
        if a == "--alias":
            name, ip = rest.pop(0).split("=", 1)
            aliases.append({"ip": ip, "hostnames": [name]})
        elif a == "--uid":
            uid = rest.pop(0)
        elif a == "--restart-attempt":
            attempt = rest.pop(0)
        else:
            overrides.append(a.split("=", 1))
    docs = [d for d in yaml.safe_load_all(open(src)) if d]
    jobsets = [d for d in docs if d["kind"] == "JobSet"]
    if len(jobsets) != 1:
        sys.exit(f"{src}: expected one JobSet, found {len(jobsets)}")
    js = jobsets[0]
    maps = [d for d in docs if d["kind"] == "ConfigMap"]
    for cm in maps:
        if cm["metadata"]["name"] == "ckptbench-config":
            for k, v in overrides:
                if k not in cm.setdefault("data", {}):
                    print(f"note: override {k} is not in the ConfigMap; added")
                cm["data"][k] = v
    for cm in maps:
        with open(f"{out}/configmap-{cm['metadata']['name']}.yaml", "w") as f:
            yaml.safe_dump(cm, f)
    for s in (d for d in docs if d["kind"] == "Secret"):
        with open(f"{out}/secret-{s['metadata']['name']}.yaml", "w") as f:
            yaml.safe_dump(s, f)

    name = js["metadata"]["name"]
    ns = js["metadata"].get("namespace", "default")
    net = js["spec"].get("network", {})
    sub = net.get("subdomain", name)
    with open(f"{out}/jobset-uid", "w") as f:
        f.write(uid + "\n")
    coordinator = js["spec"].get("coordinator")
    if coordinator:
        coordinator = (f"{name}-{coordinator['replicatedJob']}-"
                       f"{coordinator.get('jobIndex', 0)}-"
                       f"{coordinator.get('podIndex', 0)}.{sub}")
    rjs = js["spec"]["replicatedJobs"]
    global_replicas = sum(rj.get("replicas", 1) for rj in rjs)
    pods, ip, global_index = [], int(first), 0
    for rj in rjs:
        replicas = rj.get("replicas", 1)
        for j in range(replicas):
            job_name = f"{name}-{rj['name']}-{j}"
            job_key = hashlib.sha1(f"{ns}/{job_name}".encode()).hexdigest()
            jspec = rj["template"]["spec"]
            if jspec.get("completionMode", "Indexed") != "Indexed":
                sys.exit(f"{rj['name']}: expected completionMode Indexed")
            for idx in range(jspec.get("completions", 1)):
                host = f"{job_name}-{idx}"
                if len(host) > 63:
                    sys.exit(f"{host}: longer than 63 characters")
                t = copy.deepcopy(jspec["template"])
                spec = t["spec"]
                if net.get("enableDNSHostnames", True):
                    spec["hostname"], spec["subdomain"] = host, sub
                for c in spec.get("initContainers", []) + spec["containers"]:
                    c.pop("ports", None)
                    c.setdefault("env", []).append(
                        {"name": "JOB_COMPLETION_INDEX", "value": str(idx)})
                for v in spec.get("volumes", []):
                    if "emptyDir" in v:
                        del v["emptyDir"]
                        v["persistentVolumeClaim"] = {"claimName": f"{host}-{v['name']}"}
                    if "hostPath" in v:
                        v["hostPath"]["path"] = f"{hostroot}/{host}{v['hostPath']['path']}"
                meta = t.setdefault("metadata", {})
                meta["name"] = host
                added = {
                    "jobset.sigs.k8s.io/jobset-name": name,
                    "jobset.sigs.k8s.io/jobset-uid": uid,
                    "jobset.sigs.k8s.io/replicatedjob-name": rj["name"],
                    "jobset.sigs.k8s.io/replicatedjob-replicas": str(replicas),
                    "jobset.sigs.k8s.io/global-replicas": str(global_replicas),
                    "jobset.sigs.k8s.io/job-index": str(j),
                    "jobset.sigs.k8s.io/job-global-index": str(global_index),
                    "jobset.sigs.k8s.io/job-key": job_key,
                    "jobset.sigs.k8s.io/restart-attempt": attempt,
                    "batch.kubernetes.io/job-completion-index": str(idx),
                    "batch.kubernetes.io/job-name": job_name,
                }
                if coordinator:
                    added["jobset.sigs.k8s.io/coordinator"] = coordinator
                meta.setdefault("labels", {}).update(added)
                meta.setdefault("annotations", {}).update(added)
                containers = ",".join(c["name"] for c in spec["containers"])
                probes = sorted({str(c[p]["grpc"]["port"]) for c in spec["containers"]
                                 for p in ("readinessProbe", "livenessProbe")
                                 if "grpc" in c.get(p, {})})
                pods.append((host, f"{prefix}.{ip}", rj["name"], containers,
                             ",".join(probes) or "-",
                             {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                              "spec": spec}))
                ip += 1
            global_index += 1
    dns = [{"ip": a, "hostnames": [f"{h}.{sub}", f"{h}.{sub}.{ns}.svc.cluster.local"]}
           for h, a, *_ in pods]
    with open(f"{out}/pods.tsv", "w") as tsv:
        for host, addr, rj, containers, probes, pod in pods:
            pod["spec"]["hostAliases"] = dns + aliases
            with open(f"{out}/pod-{host}.yaml", "w") as f:
                yaml.safe_dump(pod, f)
            tsv.write(f"{host}\t{addr}\t{rj}\t{containers}\t{probes}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
