#!/usr/bin/python3
"""What the Job and JobSet controllers would do with the pods' exit codes.

podman runs no controller, so jobset_test.sh records how each pod's
containers exited and this script applies the rendered manifests' policies
to them as the controllers do, printing the JobSet's fate:
  RestartJobSet <job>: <reason>    (a restart, while maxRestarts allows)
  FailJobSet <job>: <reason>
  Completed                        (no Job failed)
  ReachedMaxRestarts <job>: <reason>

Job controller (one Job per replicatedJob here: replicas 1), per failed pod
(a container of the pod's that exited non-zero; restartPolicy Never), the
rules of spec.podFailurePolicy in order, the first match wins (API:
k8s.io/api batch/v1 types.go, PodFailurePolicyRule,
PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyOnPodConditions-
Pattern): onExitCodes matches when a container (the one named by
containerName, else any) terminated with a non-zero code In (or NotIn) the
values; onPodConditions when the pod has the condition (a disrupted pod:
DisruptionTarget, --disrupted HOST). FailJob fails the Job with reason
PodFailurePolicy; Ignore does not count; Count, or no rule matching, counts
towards backoffLimit, and past it the Job fails with BackoffLimitExceeded.

JobSet controller (kubernetes-sigs/jobset pkg/controllers/failure_policy.go,
executeFailurePolicy and findFirstFailedPolicyRuleAndJob): without a
failurePolicy the first failure fails the JobSet; with one, the rules in
order, the first rule that any failed Job matches (its reason in
onJobFailureReasons, its replicatedJob in targetReplicatedJobs; empty lists
match all) gives the action; none matching: RestartJobSet, which past
maxRestarts fails the JobSet (ReachedMaxRestarts).

It judges the pods' final state. The controllers act on what has failed
when they look: a Job holding both a pod that FailJob matches and one that
is counted fails with whichever they see first, and the JobSet matches its
rules against the Jobs failed by then. ckptbench makes every pod of a run
exit alike (the coordinator tells its nodes), so the order does not change
the outcome here; a mix would.

usage: jobset_verdict.py RENDERED PODS_TSV EXITS [--restarts N]
                         [--disrupted HOST]...
EXITS: lines "HOST-CONTAINER CODE", as jobset_test.sh writes them.
"""
import sys

import yaml


def exit_codes_match(req, codes):
    name = req.get("containerName")
    got = [c for n, c in codes.items() if c != 0 and (name is None or n == name)]
    values = set(req["values"])
    if req["operator"] == "In":
        return any(c in values for c in got)
    if req["operator"] == "NotIn":
        return any(c not in values for c in got)
    return False  # an operator added later: the requirement is not met


def pod_action(policy, codes, disrupted):
    """The action podFailurePolicy takes on one failed pod."""
    for rule in (policy or {}).get("rules", []):
        if "onExitCodes" in rule and exit_codes_match(rule["onExitCodes"], codes):
            return rule["action"]
        conds = rule.get("onPodConditions") or []
        if disrupted and any(c["type"] == "DisruptionTarget" and
                             c.get("status", "True") == "True" for c in conds):
            return rule["action"]
    return "Count"


def main(argv):
    rendered, tsv, exits, *rest = argv
    restarts, disrupted = 0, set()
    while rest:
        a = rest.pop(0)
        if a == "--restarts":
            restarts = int(rest.pop(0))
        elif a == "--disrupted":
            disrupted.add(rest.pop(0))
        else:
            sys.exit(f"unknown argument {a}")
    js = next(d for d in yaml.safe_load_all(open(rendered))
              if d and d["kind"] == "JobSet")
    code_of = {}
    for line in open(exits):
        name, code = line.split()
        code_of[name] = int(code) if code.lstrip("-").isdigit() else None
    pods = {}  # replicatedJob -> [(host, {container: code})]
    for line in open(tsv):
        host, _ip, rj, containers, _probes = line.rstrip("\n").split("\t")
        codes = {c: code_of.get(f"{host}-{c}") for c in containers.split(",")}
        missing = [c for c, v in codes.items() if v is None]
        if missing:
            sys.exit(f"{host}: no exit code for {', '.join(missing)}")
        pods.setdefault(rj, []).append((host, codes))
    failed = []  # (job, replicatedJob, reason) in the order they failed
    for rjob in js["spec"]["replicatedJobs"]:
        spec = rjob["template"]["spec"]
        count = 0
        reason = None
        for host, codes in pods.get(rjob["name"], []):
            if all(c == 0 for c in codes.values()):
                continue  # Succeeded, disrupted or not
            action = pod_action(spec.get("podFailurePolicy"), codes,
                                host in disrupted)
            if action == "FailJob":
                reason = "PodFailurePolicy"
                break
            if action == "Count":
                count += 1
        if reason is None and count > spec.get("backoffLimit", 6):
            reason = "BackoffLimitExceeded"
        if reason:
            failed.append((f"{js['metadata']['name']}-{rjob['name']}-0",
                           rjob["name"], reason))
    if not failed:
        print("Completed")
        return
    policy = js["spec"].get("failurePolicy")
    if policy is None:
        job, _, reason = failed[0]
        print(f"FailJobSet {job}: {reason}")
        return
    for rule in policy.get("rules", []):
        for job, rj, reason in failed:
            reasons = rule.get("onJobFailureReasons") or []
            targets = rule.get("targetReplicatedJobs") or []
            if (not reasons or reason in reasons) and (not targets or rj in targets):
                action = rule["action"]
                if action.startswith("Restart") and "Ignore" not in action and \
                        restarts >= policy.get("maxRestarts", 0):
                    action = "ReachedMaxRestarts"
                print(f"{action} {job}: {reason}")
                return
    job, _, reason = failed[0]
    action = "RestartJobSet" if restarts < policy.get("maxRestarts", 0) \
        else "ReachedMaxRestarts"
    print(f"{action} {job}: {reason}")


if __name__ == "__main__":
    main(sys.argv[1:])
