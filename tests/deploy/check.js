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
// For every ckptbench container: the command must be a ckptbench command,
// each flag one it accepts, and each env var one it reads (a config key's
// alias or a listed other variable), ConfigMaps fed through envFrom
// included. Prints one line per object checked; exits 1 on any problem.
"use strict";
const fs = require("fs");
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
