// Checks the pod templates in rendered manifests (kubectl kustomize DIR)
// against the Kubernetes Pod Security Standards, profile "restricted",
// version "latest".
//   node pod_security.js [--allow-hostpath] RENDERED.yaml...
// Pod templates: Pod, PodTemplate, Deployment, ReplicaSet, StatefulSet,
// DaemonSet, ReplicationController, Job, CronJob (the kinds Pod Security
// Admission reads) and JobSet (spec.replicatedJobs[].template.spec.template).
// Prints one line per pod template: "ok", or one line per violation naming
// the object, the replicated job, the field (container included) and the
// upstream check ID. Exits 1 on any violation, or on a file with no pod
// template in it.
// --allow-hostpath: hostPath volumes are allowed (the documented exception
// for the boot-disk overlays); every other rule still applies, other
// restricted volume types included.
//
// The rules follow upstream:
//   https://kubernetes.io/docs/concepts/security/pod-security-standards/
//   https://github.com/kubernetes/pod-security-admission/tree/master/policy
//     (checked against commit 8f84a87c7f617f64a4ddc1aea24aeeb7a2e07cb8)
// Each check below is named by its upstream CheckID and cites its
// policy/check_*.go file. "latest" is the newest version of every check.
// restricted = the baseline checks + the restricted ones, less the baseline
// checks a restricted check overrides (policy/registry.go):
// capabilities_baseline (by capabilities_restricted), hostPathVolumes (by
// restrictedVolumes, so a hostPath volume is a restrictedVolumes violation),
// seccompProfile_baseline (by seccompProfile_restricted) and procMount (by
// procMount_restricted). Upstream reports one message per check; here each
// offending field gets its own line, pass/fail being the same.
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");

// Pod templates in one manifest: [{where, metadata, spec}].
// Kinds as in admission/admission.go DefaultPodSpecExtractor, plus JobSet.
function podTemplates(doc) {
  if (!doc || typeof doc !== "object") return [];
  const name = `${doc.kind}/${doc.metadata?.name ?? "?"}`;
  const one = (where, t) => (t ? [{ where, metadata: t.metadata || {}, spec: t.spec || {} }] : []);
  switch (doc.kind) {
    case "Pod":
      return one(name, doc);
    case "PodTemplate":
      return one(name, doc.template);
    case "CronJob":
      return one(name, doc.spec?.jobTemplate?.spec?.template);
    case "JobSet":
      return (doc.spec?.replicatedJobs || []).flatMap((rj) =>
        one(`${name} replicatedJob ${rj.name}`, rj.template?.spec?.template));
    case "Deployment": case "ReplicaSet": case "StatefulSet": case "DaemonSet":
    case "ReplicationController": case "Job":
      return one(name, doc.spec?.template);
    default:
      return [];
  }
}

// policy/visitor.go: init containers, containers, ephemeral containers.
function containers(spec) {
  const out = [];
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const c of spec[list] || []) {
      out.push({ c, sc: c.securityContext || {}, at: `spec.${list}[${c.name}]` });
    }
  }
  return out;
}

const podSC = (spec) => spec.securityContext || {};
// v1.25+: these checks pass for spec.os.name=windows.
const windows = (spec) => spec.os?.name === "windows";
// v1.35+ (policy/helpers.go relaxPolicyForUserNamespacePod): hostUsers=false.
const userNamespace = (spec) => spec.hostUsers === false;
const show = (v) => (v === undefined ? "unset" : JSON.stringify(v));

// [CheckID, (metadata, spec, bad(field, problem), opts)], in upstream's order
// (baseline IDs sorted, then restricted IDs sorted).
const CHECKS = [
  // check_appArmorProfile.go: type RuntimeDefault or Localhost; the beta
  // annotations runtime/default, localhost/*, or empty.
  ["appArmorProfile", (meta, spec, bad) => {
    const ok = (p) => p.type === "RuntimeDefault" || p.type === "Localhost";
    const p = podSC(spec).appArmorProfile;
    if (p != null && !ok(p)) bad("spec.securityContext.appArmorProfile.type", `is ${show(p.type)}`);
    for (const { sc, at } of containers(spec)) {
      if (sc.appArmorProfile != null && !ok(sc.appArmorProfile)) {
        bad(`${at}.securityContext.appArmorProfile.type`, `is ${show(sc.appArmorProfile.type)}`);
      }
    }
    const prefix = "container.apparmor.security.beta.kubernetes.io/";
    for (const [k, v] of Object.entries(meta.annotations || {})) {
      if (k.startsWith(prefix) && !(v === "" || v === "runtime/default" || String(v).startsWith("localhost/"))) {
        bad(`metadata.annotations[${k}]`, `is ${show(v)}`);
      }
    }
  }],
  // check_hostNamespaces.go
  ["hostNamespaces", (meta, spec, bad) => {
    for (const f of ["hostNetwork", "hostPID", "hostIPC"]) {
      if (spec[f] === true) bad(`spec.${f}`, "is true");
    }
  }],
  // check_hostPorts.go
  ["hostPorts", (meta, spec, bad) => {
    for (const { c, at } of containers(spec)) {
      for (const p of c.ports || []) {
        if ((p.hostPort || 0) !== 0) bad(`${at}.ports[${p.name ?? p.containerPort}].hostPort`, `is ${p.hostPort}`);
      }
    }
  }],
  // check_hostProbesAndhostLifecycle.go (v1.34+): no host in the httpGet or
  // tcpSocket of probes and lifecycle handlers.
  ["hostProbesAndHostLifecycle", (meta, spec, bad) => {
    for (const { c, at } of containers(spec)) {
      const handlers = [["livenessProbe", c.livenessProbe], ["readinessProbe", c.readinessProbe],
        ["startupProbe", c.startupProbe], ["lifecycle.postStart", c.lifecycle?.postStart],
        ["lifecycle.preStop", c.lifecycle?.preStop]];
      for (const [name, h] of handlers) {
        for (const how of ["httpGet", "tcpSocket"]) {
          if (h?.[how]?.host) bad(`${at}.${name}.${how}.host`, `is ${show(h[how].host)}`);
        }
      }
    }
  }],
  // check_privileged.go
  ["privileged", (meta, spec, bad) => {
    for (const { sc, at } of containers(spec)) {
      if (sc.privileged === true) bad(`${at}.securityContext.privileged`, "is true");
    }
  }],
  // check_seLinuxOptions.go (v1.31+ types): type one of the container
  // types or empty; user and role unset.
  ["seLinuxOptions", (meta, spec, bad) => {
    const types = ["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"];
    const check = (o, at) => {
      if (o == null) return;
      if (!types.includes(o.type ?? "")) bad(`${at}.seLinuxOptions.type`, `is ${show(o.type)}`);
      if (o.user) bad(`${at}.seLinuxOptions.user`, "is set");
      if (o.role) bad(`${at}.seLinuxOptions.role`, "is set");
    };
    check(podSC(spec).seLinuxOptions, "spec.securityContext");
    for (const { sc, at } of containers(spec)) check(sc.seLinuxOptions, `${at}.securityContext`);
  }],
  // check_sysctls.go (v1.37 list)
  ["sysctls", (meta, spec, bad) => {
    const allowed = new Set([
      "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
      "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start",
      "net.ipv4.ip_local_reserved_ports", // 1.27
      "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", // 1.29
      "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes",
      "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", // 1.32
      "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat", // 1.37
    ]);
    for (const s of podSC(spec).sysctls || []) {
      if (!allowed.has(s.name)) bad(`spec.securityContext.sysctls[${s.name}]`, "is not an allowed sysctl");
    }
  }],
  // check_windowsHostProcess.go
  ["windowsHostProcess", (meta, spec, bad) => {
    if (podSC(spec).windowsOptions?.hostProcess === true) {
      bad("spec.securityContext.windowsOptions.hostProcess", "is true");
    }
    for (const { sc, at } of containers(spec)) {
      if (sc.windowsOptions?.hostProcess === true) bad(`${at}.securityContext.windowsOptions.hostProcess`, "is true");
    }
  }],
  // check_allowPrivilegeEscalation.go: every container sets it to false.
  ["allowPrivilegeEscalation", (meta, spec, bad) => {
    if (windows(spec)) return;
    for (const { sc, at } of containers(spec)) {
      if (sc.allowPrivilegeEscalation !== false) {
        bad(`${at}.securityContext.allowPrivilegeEscalation`, `is ${show(sc.allowPrivilegeEscalation)}, must be false`);
      }
    }
  }],
  // check_capabilities_restricted.go: drop includes "ALL" (exactly that
  // spelling), add holds nothing but NET_BIND_SERVICE.
  ["capabilities_restricted", (meta, spec, bad) => {
    if (windows(spec)) return;
    for (const { sc, at } of containers(spec)) {
      const caps = sc.capabilities || {};
      if (!(caps.drop || []).includes("ALL")) {
        bad(`${at}.securityContext.capabilities.drop`, `is ${show(caps.drop)}, must include "ALL"`);
      }
      for (const cap of caps.add || []) {
        if (cap !== "NET_BIND_SERVICE") {
          bad(`${at}.securityContext.capabilities.add`, `has ${show(cap)}; only "NET_BIND_SERVICE" may be added`);
        }
      }
    }
  }],
  // check_procMount_restricted.go (v1.35+): unset or "Default", even with
  // hostUsers=false (only the baseline check relaxes for user namespaces).
  ["procMount_restricted", (meta, spec, bad) => {
    for (const { sc, at } of containers(spec)) {
      if (sc.procMount != null && sc.procMount !== "Default") bad(`${at}.securityContext.procMount`, `is ${show(sc.procMount)}`);
    }
  }],
  // check_restrictedVolumes.go: only these volume sources (the docs page
  // predates "image", which the code allows).
  ["restrictedVolumes", (meta, spec, bad, opts) => {
    const allowed = ["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
      "persistentVolumeClaim", "projected", "secret"];
    const named = ["hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
      "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume",
      "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos"];
    for (const v of spec.volumes || []) {
      if (allowed.some((t) => v[t] != null)) continue;
      const type = named.find((t) => v[t] != null) || "unknown";
      if (type === "hostPath" && opts.allowHostPath) continue;
      bad(`spec.volumes[${v.name}]`, `is a ${type} volume`);
    }
  }],
  // check_runAsNonRoot.go: the pod sets runAsNonRoot=true and no container
  // sets false, or every container sets true; an explicit false anywhere
  // (the pod included) fails. Passes for hostUsers=false (v1.35+).
  ["runAsNonRoot", (meta, spec, bad) => {
    if (userNamespace(spec)) return;
    const pod = podSC(spec).runAsNonRoot;
    if (pod != null && pod !== true) bad("spec.securityContext.runAsNonRoot", `is ${show(pod)}, must be true`);
    for (const { sc, at } of containers(spec)) {
      if (sc.runAsNonRoot != null) {
        if (sc.runAsNonRoot !== true) bad(`${at}.securityContext.runAsNonRoot`, `is ${show(sc.runAsNonRoot)}, must be true`);
      } else if (pod !== true) {
        bad(`${at}.securityContext.runAsNonRoot`, "is unset and the pod does not set runAsNonRoot=true");
      }
    }
  }],
  // check_runAsUser.go: no runAsUser=0, pod or container. Passes for
  // hostUsers=false (v1.35+).
  ["runAsUser", (meta, spec, bad) => {
    if (userNamespace(spec)) return;
    if (podSC(spec).runAsUser === 0) bad("spec.securityContext.runAsUser", "is 0");
    for (const { sc, at } of containers(spec)) {
      if (sc.runAsUser === 0) bad(`${at}.securityContext.runAsUser`, "is 0");
    }
  }],
  // check_seccompProfile_restricted.go: type RuntimeDefault or Localhost, set
  // at pod level or on every container; a bad explicit value anywhere
  // (Unconfined, say) fails.
  ["seccompProfile_restricted", (meta, spec, bad) => {
    if (windows(spec)) return;
    const ok = (p) => p.type === "RuntimeDefault" || p.type === "Localhost";
    const pod = podSC(spec).seccompProfile;
    if (pod != null && !ok(pod)) bad("spec.securityContext.seccompProfile.type", `is ${show(pod.type)}`);
    const podSet = pod != null && ok(pod);
    for (const { sc, at } of containers(spec)) {
      if (sc.seccompProfile != null) {
        if (!ok(sc.seccompProfile)) bad(`${at}.securityContext.seccompProfile.type`, `is ${show(sc.seccompProfile.type)}`);
      } else if (!podSet) {
        bad(`${at}.securityContext.seccompProfile`, "is unset and the pod sets no RuntimeDefault/Localhost profile");
      }
    }
  }],
];

// Violations of one pod template: [{rule, field, problem}].
function checkPodTemplate(metadata, spec, opts = {}) {
  const out = [];
  for (const [rule, check] of CHECKS) {
    check(metadata || {}, spec || {}, (field, problem) => out.push({ rule, field, problem }), opts);
  }
  return out;
}

// Every pod template in some parsed manifests: [{where, violations}].
function checkDocuments(docs, opts = {}) {
  return docs.flatMap(podTemplates).map((t) => ({
    where: t.where, violations: checkPodTemplate(t.metadata, t.spec, opts),
  }));
}

function main(argv) {
  const opts = { allowHostPath: false };
  const files = [];
  for (const a of argv) {
    if (a === "--allow-hostpath") opts.allowHostPath = true;
    else if (a.startsWith("-")) throw new Error("unknown argument " + a);
    else files.push(a);
  }
  if (files.length === 0) throw new Error("usage: node pod_security.js [--allow-hostpath] RENDERED.yaml...");
  let failed = false;
  for (const file of files) {
    const results = checkDocuments(yaml.loadAll(fs.readFileSync(file, "utf8")), opts);
    if (results.length === 0) {
      console.log(`${file}: FAIL no pod template found`);
      failed = true;
    }
    for (const { where, violations } of results) {
      if (violations.length === 0) console.log(`${file}: ${where}: ok`);
      for (const v of violations) console.log(`${file}: ${where}: FAIL ${v.rule}: ${v.field} ${v.problem}`);
      if (violations.length > 0) failed = true;
    }
  }
  return failed ? 1 : 0;
}

module.exports = { CHECKS, podTemplates, checkPodTemplate, checkDocuments };

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`pod_security.js: ${e.message}`);
    process.exitCode = 2;
  }
}
