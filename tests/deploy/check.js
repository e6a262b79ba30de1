// Checks deployment files against their schemas and against the binary.
//   node check.js --interface I.json [--crd CRD.yaml] [--k8s F.yaml ...]
//                 [--compose C.yaml]
// --interface: `ckptbench keys --json` (commands, flags, keys, other env).
// --crd: the JobSet CRD; every JobSet is validated against its
//   openAPIV3Schema with ajv. Without it JobSets are not schema-checked
//   (the caller says why).
// --k8s: rendered manifests (kubectl kustomize); built-in kinds are
//   validated with kubernetes-models.
// --compose: a docker-compose file.
// --plan BIN: ckptbench itself; for a JobSet whose node pods keep their
//   checkpoints in an emptyDir (node-local), `BIN plan` with the ConfigMap's
//   settings gives the bytes one node writes per checkpoint, and the node
//   container's ephemeral-storage request (and the emptyDir's sizeLimit)
//   must hold NUM_SAVE_CALLS of them: the steps a run has written before
//   its cleanup removes the older ones. NUM_NODES must equal the node Job's
//   parallelism and completions.
// For every ckptbench container: the command must be a ckptbench command,
// each flag one it accepts, and each env var one it reads (a config key's
// alias or a listed other variable), ConfigMaps fed through envFrom
// included. Prints one line per object checked; exits 1 on any problem.
"use strict";
const fs = require("fs");
const { execFileSync } = require("child_process");
const yaml = require("js-yaml");
const Ajv = require("ajv");

function parseArgs(argv) {
  const out = { k8s: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--interface") out.iface = argv[++i];
    else if (a === "--crd") out.crd = argv[++i];
    else if (a === "--k8s") out.k8s.push(argv[++i]);
    else if (a === "--compose") out.compose = argv[++i];
    else if (a === "--plan") out.plan = argv[++i];
    else throw new Error("unknown argument " + a);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
const iface = JSON.parse(fs.readFileSync(args.iface, "utf8"));
const commands = new Set(iface.commands);
const flags = new Map(iface.flags.map((f) => [f.name, f.takes_value]));
const envNames = new Set(iface.keys.filter((k) => k.env).map((k) => k.env));
for (const e of iface.environment) envNames.add(e.name);

const problems = [];
function problem(where, what) {
  problems.push(`${where}: ${what}`);
}

// A ckptbench invocation: [command, flags and key=value ...].
function checkArgs(where, argv) {
  if (!argv || argv.length === 0) {
    problem(where, "no command");
    return;
  }
  if (!commands.has(argv[0])) {
    problem(where, `'${argv[0]}' is not a ckptbench command`);
  }
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("-")) {
      const name = a.split("=")[0];
      if (!flags.has(name)) {
        problem(where, `flag '${name}' is not one ckptbench accepts`);
      } else if (flags.get(name) && !a.includes("=")) {
        i++;  // its value
      }
    }
  }
}

function checkEnv(where, names) {
  for (const n of names) {
    if (!envNames.has(n)) {
      problem(where, `env var '${n}' is not one ckptbench reads`);
    }
  }
}

// --- Kubernetes -----------------------------------------------------------
let validateJobSet = null;
if (args.crd) {
  const crd = yaml.load(fs.readFileSync(args.crd, "utf8"));
  const version = crd.spec.versions.find((v) => v.name === "v1alpha2");
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  validateJobSet = ajv.compile(version.schema.openAPIV3Schema);
}

function builtinModel(apiVersion, kind) {
  const group = apiVersion.includes("/") ? apiVersion : "core/" + apiVersion;
  const [g, v] = group.split("/");
  const mod = g === "core" ? `kubernetes-models/${v}` : `kubernetes-models/${g}/${v}`;
  try {
    return require(mod)[kind];
  } catch (e) {
    return undefined;
  }
}

function containersOf(podSpec) {
  return [...(podSpec.initContainers || []), ...(podSpec.containers || [])];
}

function checkPodSpec(where, podSpec, configMaps) {
  for (const c of containersOf(podSpec)) {
    const at = `${where} container ${c.name}`;
    const image = c.image || "";
    if (!image.startsWith("ckptbench")) continue;
    if (c.command) continue;  // not ckptbench (e.g. chown in an init container)
    checkArgs(at, c.args);
    checkEnv(at, (c.env || []).map((e) => e.name));
    for (const from of c.envFrom || []) {
      const ref = from.configMapRef && from.configMapRef.name;
      if (!ref) continue;
      if (!configMaps.has(ref)) {
        problem(at, `envFrom ConfigMap '${ref}' is not in the manifests`);
        continue;
      }
      checkEnv(`${at} (ConfigMap ${ref})`, Object.keys(configMaps.get(ref)));
    }
  }
}

// A Kubernetes quantity ("1Gi", "1536Mi", "2G", "500M") in bytes.
function quantityBytes(q) {
  const m = /^([0-9.]+)(Ki|Mi|Gi|Ti|k|K|M|G|T)?$/.exec(String(q));
  if (!m) return NaN;
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3,
                 K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2]] || 1;
  return Number(m[1]) * unit;
}

// The node pods' disk needs against `ckptbench plan` (see --plan).
function checkNodeStorage(where, js, configMaps) {
  const rj = (js.spec.replicatedJobs || []).find((r) => r.name === "nodes");
  const cm = configMaps.get("ckptbench-config");
  if (!rj || !cm) return;
  const job = rj.template.spec;
  const nodes = Number(cm.NUM_NODES || 1);
  if (job.parallelism !== nodes || job.completions !== nodes) {
    problem(where, `NUM_NODES=${nodes} but the nodes Job has parallelism ` +
                   `${job.parallelism} and completions ${job.completions}`);
  }
  const pod = job.template.spec;
  const node = pod.containers.find((c) => c.name === "node");
  const mount = (node.volumeMounts || []).find(
      (m) => (cm.CKPT_DIR_PATH || "").startsWith(m.mountPath + "/"));
  const volume = mount && (pod.volumes || []).find((v) => v.name === mount.name);
  if (!volume || !volume.emptyDir || cm.CKPT_NODE_LOCAL !== "true") return;
  const out = execFileSync(args.plan, ["plan"], {
    env: { ...cm, PATH: process.env.PATH, HOME: process.env.HOME },
    encoding: "utf8" });
  const m = /^per node +max (\d+) /m.exec(out);
  if (!m) { problem(where, `ckptbench plan printed no 'per node' line:\n${out}`); return; }
  const saves = Number(cm.NUM_SAVE_CALLS || 3);
  const need = Number(m[1]) * saves;
  const request = ((node.resources || {}).requests || {})["ephemeral-storage"];
  const what = `${saves} checkpoint(s) of ${(Number(m[1]) / 2 ** 20).toFixed(1)} MiB per node ` +
               `(${(need / 2 ** 20).toFixed(1)} MiB)`;
  if (!(quantityBytes(request) >= need)) {
    problem(where, `nodes: ephemeral-storage request ${request} does not hold ${what}`);
  } else if (volume.emptyDir.sizeLimit && !(quantityBytes(volume.emptyDir.sizeLimit) >= need)) {
    problem(where, `nodes: emptyDir sizeLimit ${volume.emptyDir.sizeLimit} does not hold ${what}`);
  } else {
    console.log(`${where}: nodes: ephemeral-storage request ${request} holds ${what}`);
  }
}

for (const file of args.k8s) {
  const docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter(Boolean);
  const configMaps = new Map();
  for (const d of docs) {
    if (d.kind === "ConfigMap") configMaps.set(d.metadata.name, d.data || {});
  }
  for (const d of docs) {
    const where = `${file}: ${d.kind}/${d.metadata && d.metadata.name}`;
    if (d.kind === "JobSet") {
      if (d.apiVersion !== "jobset.x-k8s.io/v1alpha2") {
        problem(where, `apiVersion ${d.apiVersion}, expected jobset.x-k8s.io/v1alpha2`);
      }
      if (validateJobSet) {
        if (!validateJobSet(d)) {
          for (const e of validateJobSet.errors) {
            problem(where, `schema: ${e.instancePath} ${e.message}`);
          }
        } else {
          console.log(`${where}: valid against the JobSet CRD schema`);
        }
      }
      for (const rj of d.spec.replicatedJobs || []) {
        checkPodSpec(`${where} ${rj.name}`, rj.template.spec.template.spec,
                     configMaps);
      }
      if (args.plan) checkNodeStorage(where, d, configMaps);
      continue;
    }
    const Model = builtinModel(d.apiVersion, d.kind);
    if (!Model) {
      problem(where, `no schema for ${d.apiVersion} ${d.kind}`);
      continue;
    }
    try {
      new Model(d).validate();
      console.log(`${where}: valid (kubernetes-models)`);
    } catch (e) {
      problem(where, `schema: ${e.message}`);
    }
  }
}

// --- docker-compose ---------------------------------------------------------
if (args.compose) {
  const c = yaml.load(fs.readFileSync(args.compose, "utf8"));
  let checked = 0;
  for (const [name, s] of Object.entries(c.services || {})) {
    const image = s.image || "";
    if (!image.startsWith("ckptbench")) continue;
    const where = `${args.compose}: service ${name}`;
    checkArgs(where, s.command);
    const env = Array.isArray(s.environment)
      ? s.environment.map((e) => e.split("=")[0])
      : Object.keys(s.environment || {});
    checkEnv(where, env);
    checked++;
    console.log(`${where}: command and ${env.length} env vars checked`);
  }
  if (checked === 0) problem(args.compose, "no ckptbench service found");
}

for (const p of problems) console.error("problem: " + p);
process.exit(problems.length ? 1 : 0);
