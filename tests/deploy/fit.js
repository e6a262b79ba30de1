// Which rendered JobSets fit on which cloud node types.
//   node fit.js --types node_types.json --overlay NAME=RENDERED.yaml ...
//               [--markdown OUT.md]
// --types: node types with their allocatable figures, the providers'
//   reservation formulas, the system pods every node (and every cluster)
//   runs, and each provider's default cluster (node_types.json says where
//   each figure comes from). The allocatable figures are recomputed here from
//   the formulas; a mismatch is an error.
// --overlay: `kubectl kustomize DIR` output; the one named "base" must fit
//   every provider's default cluster.
// For each JobSet: its pods (replicatedJobs x replicas x parallelism), each
// pod's effective request (Kubernetes' rule: max(largest init container plus
// the sidecars before it, containers plus sidecars)), GKE's gcsfuse sidecar
// when the pod asks the webhook for it, and the node pods' anti-affinity on
// kubernetes.io/hostname. For each node type: whether one node pod fits on a
// node beside the per-node system pods, how many fit per node, the smallest
// cluster that schedules the JobSet beside the cluster's own system pods
// (a greedy simulation of kube-scheduler: each pod to the feasible node with
// the most free capacity, spreading a group with anti-affinity), and whether
// the provider's default node count does. And for GKE Autopilot
// (types.autopilot), which has no node types: whether it admits each pod
// (hostPath, capabilities, per-pod maximums) and the request it bills (its
// minimums and CPU:memory ratio applied). Prints the table as markdown;
// --markdown also writes it to a file. Exits 1 if the base does not fit a
// provider's default cluster, naming the node types, or Autopilot rejects it.
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");

function parseArgs(argv) {
  const out = { overlays: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--types") out.types = argv[++i];
    else if (a === "--markdown") out.markdown = argv[++i];
    else if (a === "--overlay") {
      const v = argv[++i] || "";
      const eq = v.indexOf("=");
      if (eq <= 0) throw new Error("--overlay takes NAME=FILE, got " + v);
      out.overlays.push({ name: v.slice(0, eq), file: v.slice(eq + 1) });
    } else throw new Error("unknown argument " + a);
  }
  if (!out.types || out.overlays.length === 0)
    throw new Error("usage: fit.js --types T.json --overlay NAME=FILE ... [--markdown OUT]");
  return out;
}

// Quantities: cpu in millicores, memory and storage in MiB.
function cpuMilli(q) {
  if (q === undefined || q === null) return 0;
  const s = String(q);
  const m = /^([0-9.]+)(m?)$/.exec(s);
  if (!m) throw new Error("cannot parse cpu quantity " + s);
  return m[2] ? Number(m[1]) : Number(m[1]) * 1000;
}
const UNITS = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15,
                Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
function mib(q) {
  if (q === undefined || q === null) return 0;
  const s = String(q);
  const m = /^([0-9.]+(?:e[0-9]+)?)([kMGTP]i?|Ki)?$/.exec(s);
  if (!m) throw new Error("cannot parse quantity " + s);
  return (Number(m[1]) * UNITS[m[2] || ""]) / 2 ** 20;
}
const RES = ["cpu", "mem", "eph"];
const zero = () => ({ cpu: 0, mem: 0, eph: 0 });
const add = (a, b) => ({ cpu: a.cpu + b.cpu, mem: a.mem + b.mem, eph: a.eph + b.eph });
const max = (a, b) => ({ cpu: Math.max(a.cpu, b.cpu), mem: Math.max(a.mem, b.mem),
                         eph: Math.max(a.eph, b.eph) });
function requests(c) {
  const r = (c.resources && c.resources.requests) || {};
  const l = (c.resources && c.resources.limits) || {};
  // A limit without a request is the request.
  const pick = (k) => (r[k] !== undefined ? r[k] : l[k]);
  return { cpu: cpuMilli(pick("cpu")), mem: mib(pick("memory")),
           eph: mib(pick("ephemeral-storage")) };
}

// The gcsfuse sidecar GKE's webhook adds at admission (not in the manifest).
function gcsfuseSidecar(tmpl, types) {
  const sc = types.sidecars && types.sidecars.gcsfuse;
  if (!sc) return null;
  const ann = (tmpl.metadata && tmpl.metadata.annotations) || {};
  if (String(ann[sc.annotation]) !== "true") return null;
  const all = [...(tmpl.spec.containers || []), ...(tmpl.spec.initContainers || [])];
  if (all.some((c) => c.name === sc.container)) return null;  // already there
  const one = (key, dflt, parse) => {
    const req = ann["gke-gcsfuse/" + key + "-request"];
    const lim = ann["gke-gcsfuse/" + key + "-limit"];
    if (req !== undefined) return parse(req);
    if (lim !== undefined && parse(lim) > 0) return parse(lim);
    return dflt;
  };
  return { cpu: one("cpu", sc.cpu, cpuMilli), mem: one("memory", sc.memoryMiB, mib),
           eph: one("ephemeral-storage", sc.ephemeralMiB, mib) };
}

// Kubernetes' effective pod request, native sidecars included.
function podRequest(tmpl, types) {
  const spec = tmpl.spec;
  let sidecars = zero();
  let initMax = zero();
  const injected = gcsfuseSidecar(tmpl, types);
  if (injected) sidecars = add(sidecars, injected);  // injected first
  for (const c of spec.initContainers || []) {
    if (c.restartPolicy === "Always") sidecars = add(sidecars, requests(c));
    else initMax = max(initMax, add(requests(c), sidecars));
  }
  let regular = zero();
  for (const c of spec.containers || []) regular = add(regular, requests(c));
  return { req: max(initMax, add(regular, sidecars)), sidecar: injected };
}

// Does a label selector pick this group's pods? The JobSet controller adds
// the jobset/replicatedjob labels at run time.
function selects(sel, labels) {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels || {}))
    if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions || []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    if (e.operator === "In" && !(has && e.values.includes(labels[e.key]))) return false;
    if (e.operator === "NotIn" && has && e.values.includes(labels[e.key])) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}
function antiAffinity(tmpl, labels) {
  const paa = tmpl.spec.affinity && tmpl.spec.affinity.podAntiAffinity;
  if (!paa) return "none";
  const host = (t) => t.topologyKey === "kubernetes.io/hostname" && selects(t.labelSelector, labels);
  if ((paa.requiredDuringSchedulingIgnoredDuringExecution || []).some(host)) return "required";
  if ((paa.preferredDuringSchedulingIgnoredDuringExecution || [])
      .some((w) => host(w.podAffinityTerm || {}))) return "preferred";
  return "none";
}

function jobsetPods(js, types) {
  const coord = js.spec.coordinator && js.spec.coordinator.replicatedJob;
  const groups = [];
  for (const rj of js.spec.replicatedJobs) {
    const job = rj.template.spec;
    const tmpl = job.template;
    const labels = { ...((tmpl.metadata && tmpl.metadata.labels) || {}),
                     "jobset.sigs.k8s.io/jobset-name": js.metadata.name,
                     "jobset.sigs.k8s.io/replicatedjob-name": rj.name };
    const parallel = Math.min(job.parallelism ?? 1, job.completions ?? job.parallelism ?? 1);
    const { req, sidecar } = podRequest(tmpl, types);
    groups.push({ name: rj.name, coordinator: rj.name === coord, count: (rj.replicas ?? 1) * parallel,
                  req, sidecar, spread: antiAffinity(tmpl, labels), tmpl });
  }
  return groups;
}

// --- Node types -------------------------------------------------------------

function tiered(milli, rates) {
  const bounds = [0, 1000, 2000, 4000, Infinity];
  let r = 0;
  for (let i = 0; i < rates.length; i++)
    r += Math.max(0, Math.min(milli, bounds[i + 1]) - bounds[i]) * rates[i];
  return r;
}
function gkeMemory(m) {
  if (m < 1024) return 255;
  const g = 1024;
  const b = [0, 4 * g, 8 * g, 16 * g, 128 * g, Infinity];
  const rates = [0.25, 0.2, 0.1, 0.06, 0.02];
  let r = 0;
  for (let i = 0; i < rates.length; i++) r += Math.max(0, Math.min(m, b[i + 1]) - b[i]) * rates[i];
  return r;
}
const AKS_CPU = { 1: 60, 2: 100, 4: 140, 8: 180, 16: 260, 32: 420, 64: 740 };

function allocatable(t, p, types) {
  const rs = p.reservation;
  const cpuCap = t.vcpu * 1000;
  const memCap = t.memoryGiB * 1024;
  let cpuRes;
  if (t.cpuReservedFixed !== undefined) cpuRes = t.cpuReservedFixed;
  else if (rs.cpu === "tiered") cpuRes = Math.floor(tiered(cpuCap, [0.06, 0.01, 0.005, 0.0025]));
  else if (rs.cpu === "aks") cpuRes = AKS_CPU[t.vcpu];
  if (cpuRes === undefined) throw new Error(`no cpu reservation for ${t.name}`);
  let memRes;
  if (rs.memory === "gke") memRes = gkeMemory(memCap);
  else if (rs.memory === "eks") memRes = 11 * t.maxPods + 255;
  else if (rs.memory === "aks") memRes = Math.min(20 * t.maxPods + 50, 0.25 * memCap);
  else throw new Error(`no memory reservation for ${t.name}`);
  const kernel = memCap * types.kernelMemoryOverhead.percent / 100;
  const fsCap = t.filesystemMiB;
  let ephRes;
  if (rs.ephemeral === "gke")
    ephRes = Math.min(0.5 * t.diskGB, 6 + 0.35 * t.diskGB, 100) * 1024 + 0.1 * fsCap;
  else if (rs.ephemeral === "eks") ephRes = 1024 + 0.1 * fsCap;
  else if (rs.ephemeral === "aks") ephRes = 0.1 * fsCap;
  else throw new Error(`no ephemeral-storage reservation for ${t.name}`);
  return { cpu: cpuCap - cpuRes,
           mem: Math.floor(memCap - kernel - memRes - rs.evictionMemoryMiB),
           eph: Math.floor(fsCap - ephRes) };
}

const applies = (item, text) => !item.when || new RegExp(item.when).test(text);

// --- Scheduling -------------------------------------------------------------

// Places pods one at a time, as kube-scheduler would in this order: on a node
// where the pod fits (and, for required anti-affinity, holds none of its
// group), preferring for preferred anti-affinity a node without its group,
// then the node with the most free capacity (LeastAllocated). Returns the
// pods left unscheduled.
function simulate(nodeCount, free, pods) {
  const nodes = Array.from({ length: nodeCount }, () => ({ ...free, groups: new Set() }));
  const pending = [];
  for (const pod of pods) {
    let best = null;
    let bestScore = -Infinity;
    for (const n of nodes) {
      if (n.pods < 1 || RES.some((k) => pod.req[k] > n[k] + 1e-9)) continue;
      if (pod.spread === "required" && n.groups.has(pod.group)) continue;
      let score = (n.cpu - pod.req.cpu) / free.cpu + (n.mem - pod.req.mem) / free.mem;
      if (pod.spread === "preferred" && !n.groups.has(pod.group)) score += 100;
      if (score > bestScore) { best = n; bestScore = score; }
    }
    if (!best) { pending.push(pod); continue; }
    for (const k of RES) best[k] -= pod.req[k];
    best.pods -= 1;
    best.groups.add(pod.group);
  }
  return pending;
}

function evaluate(overlay, t, p, types) {
  const alloc = allocatable(t, p, types);
  const perNode = p.perNode.filter((i) => applies(i, overlay.text));
  const free = { cpu: alloc.cpu, mem: alloc.mem, eph: alloc.eph, pods: t.maxPods };
  for (const i of perNode) { free.cpu -= i.cpu; free.mem -= i.memoryMiB; free.pods -= 1; }
  const system = [];
  for (const i of p.cluster.filter((c) => applies(c, overlay.text)))
    for (let r = 0; r < i.replicas; r++)
      system.push({ group: "system:" + i.name, spread: i.replicas > 1 ? "preferred" : "none",
                    req: { cpu: i.cpu, mem: i.memoryMiB, eph: 0 } });
  const pods = [...system];
  for (const g of overlay.groups)
    for (let i = 0; i < g.count; i++) pods.push({ group: g.name, spread: g.spread, req: g.req });
  const node = overlay.groups.find((g) => !g.coordinator) || overlay.groups[0];
  const short = RES.filter((k) => node.req[k] > free[k]);
  let perNodeFit = Math.floor(Math.min(...RES.map((k) => (node.req[k] > 0 ? free[k] / node.req[k] : Infinity)),
                                       free.pods));
  if (node.spread === "required") perNodeFit = Math.min(perNodeFit, 1);
  let smallest = null;
  if (short.length === 0)
    for (let n = 1; n <= 64 && smallest === null; n++)
      if (simulate(n, free, pods).length === 0) smallest = n;
  const defaultNodes = p.defaultCluster.nodes;
  const pendingAtDefault = simulate(defaultNodes, free, pods);
  return { free, node, short, perNodeFit, smallest, defaultNodes, pendingAtDefault };
}

// --- Output -----------------------------------------------------------------

const fmtCpu = (m) => (m % 1000 === 0 && m > 0 ? String(m / 1000) : `${Math.round(m)}m`);
function fmtMem(m) {
  if (m >= 1024 && Math.abs(m / 1024 - Math.round(m / 1024)) < 1e-9) return `${Math.round(m / 1024)} GiB`;
  if (m >= 1024) return `${(m / 1024).toFixed(1)} GiB`;
  return `${Math.round(m)} MiB`;
}
const fmtReq = (r) => `${fmtCpu(r.cpu)} / ${fmtMem(r.mem)} / ${fmtMem(r.eph)}`;
const plural = (n, w) => `${n} ${w}${n === 1 ? "" : "s"}`;
const RES_NAME = { cpu: "cpu", mem: "memory", eph: "ephemeral-storage" };

// --- GKE Autopilot ----------------------------------------------------------

// What Autopilot (types.autopilot: its general-purpose class) does with one
// pod group: the security rules it rejects a pod for (a hostPath outside its
// prefixes or written, a capability it does not allow, privileged), the
// per-pod maximums it rejects above, and the request it bills: raised to
// the minimums, then the smaller of CPU and memory raised into the ratio.
function autopilotPod(tmpl, group, ap) {
  const spec = tmpl.spec;
  const why = [];
  const containers = [...(spec.initContainers || []), ...(spec.containers || [])];
  for (const v of spec.volumes || []) {
    if (!v.hostPath) continue;
    const path = v.hostPath.path.replace(/\/?$/, "/");
    const written = containers.some((c) => (c.volumeMounts || []).some(
      (m) => m.name === v.name && !m.readOnly));
    if (!ap.hostPathPrefixes.some((p) => path.startsWith(p)))
      why.push(`hostPath ${v.hostPath.path} (only ${ap.hostPathPrefixes.join(", ")})`);
    else if (ap.hostPathReadOnly && written) why.push(`hostPath ${v.hostPath.path} written`);
  }
  for (const c of containers) {
    const sc = c.securityContext || {};
    if (sc.privileged) why.push(`${c.name} privileged`);
    for (const cap of (sc.capabilities && sc.capabilities.add) || [])
      if (!ap.capabilities.includes(cap)) why.push(`${c.name} adds ${cap}`);
  }
  const r = { ...group.req };
  const raised = [];
  if (r.cpu < ap.minCpu) { r.cpu = ap.minCpu; raised.push("cpu raised to its minimum"); }
  if (r.mem < ap.minMemoryMiB) { r.mem = ap.minMemoryMiB; raised.push("memory raised to its minimum"); }
  // A pod that asks no ephemeral storage gets the default; one that asks
  // less than the minimum, the minimum.
  if (r.eph === 0) r.eph = ap.defaultEphemeralMiB;
  else if (r.eph < ap.minEphemeralMiB) r.eph = ap.minEphemeralMiB;
  const perCpu = r.mem / 1024 / (r.cpu / 1000);  // GiB of memory per vCPU
  if (perCpu > ap.ratioMax) {
    r.cpu = Math.ceil((r.mem / 1024 / ap.ratioMax) * 1000);
    raised.push(`cpu raised for 1:${ap.ratioMax}`);
  } else if (perCpu < ap.ratioMin) {
    r.mem = Math.ceil((r.cpu / 1000) * ap.ratioMin * 1024);
    raised.push(`memory raised for 1:${ap.ratioMin}`);
  }
  if (r.cpu > ap.maxCpu) why.push(`cpu ${fmtCpu(r.cpu)} > ${fmtCpu(ap.maxCpu)}`);
  if (r.mem > ap.maxMemoryMiB) why.push(`memory ${fmtMem(r.mem)} > ${fmtMem(ap.maxMemoryMiB)}`);
  if (r.eph > ap.maxEphemeralMiB)
    why.push(`ephemeral-storage ${fmtMem(r.eph)} > ${fmtMem(ap.maxEphemeralMiB)}`);
  return { why, billed: r, raised };
}

function autopilotCell(o, types) {
  const ap = types.autopilot;
  const other = Object.entries(types.providers).find(([name, q]) =>
    name !== ap.provider && q.markers.some((re) => new RegExp(re).test(o.text)));
  if (other) return `n/a (${other[0]} only)`;
  const parts = [];
  const why = [];
  for (const g of o.groups) {
    const a = autopilotPod(g.tmpl, g, ap);
    for (const w of a.why) if (!why.includes(w)) why.push(w);
    parts.push(`${g.name} ${fmtReq(a.billed)}` + (a.raised.length ? ` (${a.raised.join(", ")})` : ""));
  }
  if (why.length) return "**no**: " + why.join("; ");
  return "yes: " + parts.join("; ");
}

function cell(e) {
  if (e.na) return `n/a (${e.na} only)`;
  if (e.short.length)
    return "**no**: " + e.short.map((k) => `${RES_NAME[k]} ${k === "cpu" ? fmtCpu(e.node.req[k]) : fmtMem(e.node.req[k])}` +
                                          ` > ${k === "cpu" ? fmtCpu(e.free[k]) : fmtMem(e.free[k])} free`).join(", ");
  const min = e.smallest === null ? "> 64 nodes" : plural(e.smallest, "node");
  const dflt = e.pendingAtDefault.length === 0 ? "yes" : "**no**";
  return `${e.perNodeFit}/node · ${min} · ${plural(e.defaultNodes, "node")}: ${dflt}`;
}

function markdown(types, rows, results) {
  const out = [];
  out.push("| Node type | Provider | vCPU / memory | Max pods | Allocatable cpu / memory / ephemeral | " +
           "Per-node system pods | Left per node | Default cluster |");
  out.push("|---|---|---|---|---|---|---|---|");
  for (const t of types.nodeTypes) {
    const p = types.providers[t.provider];
    const a = allocatable(t, p, types);
    const always = p.perNode.filter((i) => !i.when);
    const sCpu = always.reduce((s, i) => s + i.cpu, 0);
    const sMem = always.reduce((s, i) => s + i.memoryMiB, 0);
    const dc = p.defaultCluster;
    const isDefault = dc.nodeType === t.name ? `**${dc.nodes} × ${t.name}** (\`${dc.command}\`)` : "";
    out.push(`| ${t.name} | ${t.provider} | ${t.vcpu} / ${t.memoryGiB} GiB | ${t.maxPods} | ` +
             `${fmtCpu(a.cpu)} / ${fmtMem(a.mem)} / ${fmtMem(a.eph)} | ` +
             `${fmtCpu(sCpu)} / ${fmtMem(sMem)} (${always.length} pods) | ` +
             `${fmtCpu(a.cpu - sCpu)} / ${fmtMem(a.mem - sMem)} | ${isDefault} |`);
  }
  out.push("");
  const sys = Object.entries(types.providers).map(([name, p]) => {
    const c = p.cluster.filter((i) => !i.when);
    const cpu = c.reduce((s, i) => s + i.cpu * i.replicas, 0);
    const mem = c.reduce((s, i) => s + i.memoryMiB * i.replicas, 0);
    return `${name} ${fmtCpu(cpu)} / ${fmtMem(mem)}`;
  });
  out.push(`Cluster-wide system pods placed first (JobSet controller included): ${sys.join("; ")}.`);
  out.push("");
  out.push("| Overlay | Pods | Node pod requests (cpu / memory / ephemeral) | Node pods' anti-affinity | " +
           types.nodeTypes.map((t) => t.name).join(" | ") + " | " + types.autopilot.name + " |");
  out.push("|---|---|---|---|" + types.nodeTypes.map(() => "---|").join("") + "---|");
  for (const o of rows) {
    const node = o.groups.find((g) => !g.coordinator) || o.groups[0];
    const pods = o.groups.map((g) => g.count).join(" + ");
    const req = fmtReq(node.req) + (node.sidecar ? " (gcsfuse sidecar included)" : "");
    out.push(`| ${o.name} | ${pods} | ${req} | ${node.spread} | ` +
             types.nodeTypes.map((t) => cell(results.get(o.name).get(t.name))).join(" | ") + " | " +
             autopilotCell(o, types) + " |");
  }
  out.push("");
  out.push("Each cell: node pods per node after the per-node system pods · the smallest cluster of that " +
           "type that schedules the whole JobSet · whether the provider's default node count does. " +
           "**no**: a node pod does not fit on an empty node (the short resource named). " +
           `${types.autopilot.name}: whether it admits every pod (**no**: what it rejects) and each ` +
           "pod's request as it bills it: raised to its minimums, then the smaller of cpu and memory " +
           `raised into the 1:${types.autopilot.ratioMin} to 1:${types.autopilot.ratioMax} ratio ` +
           "(GiB per vCPU); Autopilot has no nodes to fit, it makes them.");
  return out.join("\n") + "\n";
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const types = JSON.parse(fs.readFileSync(args.types, "utf8"));
  const problems = [];
  for (const t of types.nodeTypes) {
    const p = types.providers[t.provider];
    if (!p) { problems.push(`${t.name}: no provider ${t.provider}`); continue; }
    const a = allocatable(t, p, types);
    for (const [k, key] of [["cpu", "cpu"], ["mem", "memoryMiB"], ["eph", "ephemeralMiB"]])
      if (Math.abs(a[k] - t.allocatable[key]) > 1)
        problems.push(`${t.name}: allocatable ${key} is ${t.allocatable[key]} in ${args.types}, ` +
                      `the formula gives ${a[k]}`);
  }
  const rows = [];
  for (const o of args.overlays) {
    const text = fs.readFileSync(o.file, "utf8");
    const jobsets = yaml.loadAll(text).filter((d) => d && d.kind === "JobSet");
    if (jobsets.length !== 1) { problems.push(`${o.name}: ${jobsets.length} JobSets in ${o.file}`); continue; }
    rows.push({ name: o.name, text, groups: jobsetPods(jobsets[0], types) });
  }
  const results = new Map();
  for (const o of rows) {
    const m = new Map();
    for (const t of types.nodeTypes) {
      const p = types.providers[t.provider];
      const other = Object.entries(types.providers).find(([name, q]) =>
        name !== t.provider && q.markers.some((re) => new RegExp(re).test(o.text)));
      m.set(t.name, other ? { na: other[0] } : evaluate(o, t, p, types));
    }
    results.set(o.name, m);
  }
  const md = markdown(types, rows, results);
  process.stdout.write(md);
  if (args.markdown) fs.writeFileSync(args.markdown, md);

  const base = rows.find((o) => o.name === "base");
  if (!base) problems.push('no overlay named "base"');
  else
    for (const [name, p] of Object.entries(types.providers)) {
      const t = types.nodeTypes.find((x) => x.name === p.defaultCluster.nodeType);
      const e = results.get("base").get(t.name);
      const where = `${name}'s default cluster (${p.defaultCluster.nodes} × ${t.name}, ` +
                    `\`${p.defaultCluster.command}\`)`;
      if (e.short.length)
        problems.push(`base does not fit ${where}: ${cell(e).replace(/\*\*no\*\*: /, "")}`);
      else if (e.pendingAtDefault.length) {
        const left = {};
        for (const x of e.pendingAtDefault) left[x.group] = (left[x.group] || 0) + 1;
        problems.push(`base does not fit ${where}: ` +
                      Object.entries(left).map(([g, n]) => `${plural(n, "pod")} of ` +
                        (g.startsWith("system:") ? g.slice(7) : `replicatedJob ${g}`)).join(", ") +
                      ` left pending beside the system pods; it needs ` +
                      (e.smallest === null ? "more than 64 nodes" : plural(e.smallest, "node")));
      }
    }
  // docs/deploy.md: the base is the boot-disk choice Autopilot admits.
  if (base && autopilotCell(base, types).startsWith("**no**"))
    problems.push(`${types.autopilot.name} rejects the base: ${autopilotCell(base, types)}`);
  if (problems.length) {
    for (const p of problems) console.error("FAIL: " + p);
    process.exit(1);
  }
}

main();
