#!/usr/bin/env python3
"""A reader and a writer of safetensors models written from the format's
specification alone (huggingface/safetensors README "Format"; the
Hugging Face sharded layout of transformers' save_pretrained), sharing no
code with ckptbench: what ckptbench's files are checked against, and what
makes "a user's own model" that ckptbench did not write.

  check DIR   every *.safetensors in DIR read as the specification says:
              8-byte little-endian header length (at most 100,000,000), a
              UTF-8 JSON object (spaces may pad it), each tensor's dtype
              known and its elements x dtype size = end - begin, the
              tensors covering the bytes after the header exactly, in
              offset order, without gaps or overlaps; with more than one
              file, model.safetensors.index.json naming every tensor's
              file and total_size the tensors' bytes; where config.json is
              there, a Llama's (transformers' LlamaConfig members) agreeing
              with the tensors' names, shapes and dtype. Prints a summary;
              exits 1 saying what is wrong.
  write DIR   a small model of mixed dtypes in two files and an index, the
              tensors in the order given (not sorted), bytes i*7 mod 251;
              prints {"tensor": [dtype, shape, file, begin, end]} as JSON.
"""

import json
import os
import re
import struct
import sys

# Bits per element (safetensors/src/tensor.rs Dtype::bitsize).
BITS = {"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
        "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8,
        "F8_E5M2FNUZ": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
        "I32": 32, "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64,
        "U64": 64}
INDEX = "model.safetensors.index.json"
CONFIG = "config.json"
TORCH = {"BF16": "bfloat16", "F16": "float16", "F32": "float32"}


def fail(msg):
    print(f"safetensors_spec: {msg}", file=sys.stderr)
    sys.exit(1)


def read_file(path):
    """{name: (dtype, shape, begin, end)} of one file, checked."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        first = f.read(8)
        if len(first) < 8:
            fail(f"{path}: shorter than 8 bytes")
        (n,) = struct.unpack("<Q", first)
        if n > 100_000_000 or 8 + n > size:
            fail(f"{path}: header length {n} in a file of {size}")
        raw = f.read(n)
    try:
        header = json.loads(raw.decode("utf-8").rstrip(" "))
    except (UnicodeDecodeError, ValueError) as e:
        fail(f"{path}: header is not UTF-8 JSON: {e}")
    if not isinstance(header, dict):
        fail(f"{path}: header is not an object")
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in meta.items()):
        fail(f"{path}: __metadata__ is not a map of strings")
    tensors = {}
    for name, info in header.items():
        dtype, shape = info.get("dtype"), info.get("shape")
        begin, end = info.get("data_offsets", [None, None])
        if dtype not in BITS:
            fail(f"{path}: {name}: unknown dtype {dtype!r}")
        elements = 1
        for d in shape:
            if not isinstance(d, int) or d < 0:
                fail(f"{path}: {name}: shape {shape}")
            elements *= d
        if elements * BITS[dtype] % 8 or \
                elements * BITS[dtype] // 8 != end - begin:
            fail(f"{path}: {name}: {end - begin} bytes for {dtype} {shape}")
        tensors[name] = (dtype, shape, begin, end)
    at = 0
    for name, (_, _, begin, end) in sorted(tensors.items(),
                                            key=lambda kv: kv[1][2:]):
        if begin != at:
            fail(f"{path}: {name} begins at {begin}, expected {at}")
        at = end
    if 8 + n + at != size:
        fail(f"{path}: tensors end at {8 + n + at}, the file at {size}")
    return tensors


def check_config(d, tensors):
    """config.json as a LlamaForCausalLM's, against {name: (dtype, shape)}:
    the shapes transformers' LlamaModel builds from it."""
    with open(os.path.join(d, CONFIG)) as f:
        c = json.load(f)
    if c.get("model_type") != "llama" or \
            c.get("architectures") != ["LlamaForCausalLM"]:
        fail(f"{CONFIG}: not a LlamaForCausalLM's")
    h, ffn = c["hidden_size"], c["intermediate_size"]
    heads, kv = c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim", h // heads)
    want = {"model.embed_tokens.weight": [c["vocab_size"], h],
            "model.norm.weight": [h]}
    if not c.get("tie_word_embeddings", False):
        want["lm_head.weight"] = [c["vocab_size"], h]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        want.update({p + "self_attn.q_proj.weight": [heads * hd, h],
                     p + "self_attn.k_proj.weight": [kv * hd, h],
                     p + "self_attn.v_proj.weight": [kv * hd, h],
                     p + "self_attn.o_proj.weight": [h, heads * hd],
                     p + "mlp.gate_proj.weight": [ffn, h],
                     p + "mlp.up_proj.weight": [ffn, h],
                     p + "mlp.down_proj.weight": [h, ffn],
                     p + "input_layernorm.weight": [h],
                     p + "post_attention_layernorm.weight": [h]})
    have = {name: shape for name, (_, shape) in tensors.items()}
    if have != want:
        diff = sorted(set(have) ^ set(want)) or \
            sorted(n for n in want if have[n] != want[n])
        fail(f"{CONFIG}: the tensors differ from what it describes: "
             f"{diff[:3]}")
    dtypes = {dtype for dtype, _ in tensors.values()}
    if len(dtypes) != 1 or TORCH.get(dtypes.pop()) != c.get("torch_dtype"):
        fail(f"{CONFIG}: torch_dtype {c.get('torch_dtype')!r}, the tensors "
             f"are not all of it")
    return (f"; {CONFIG}: LlamaForCausalLM, {c['num_hidden_layers']} layers, "
            f"{c['torch_dtype']}, as the tensors are")


def check(d):
    files = sorted(f for f in os.listdir(d) if f.endswith(".safetensors"))
    if not files:
        fail(f"{d}: no .safetensors file")
    by_file = {f: read_file(os.path.join(d, f)) for f in files}
    total = sum(e - b for t in by_file.values() for _, _, b, e in t.values())
    if len(files) > 1:
        pattern = re.compile(r"model-(\d{5})-of-(\d{5})\.safetensors$")
        for i, f in enumerate(files):
            m = pattern.match(f)
            if not m or int(m.group(1)) != i + 1 or int(m.group(2)) != len(files):
                fail(f"{f}: not file {i + 1} of {len(files)}")
        with open(os.path.join(d, INDEX)) as f:
            index = json.load(f)
        if index["metadata"]["total_size"] != total:
            fail(f"{INDEX}: total_size {index['metadata']['total_size']}, "
                 f"the tensors hold {total}")
        named = {t: f for f, ts in by_file.items() for t in ts}
        if index["weight_map"] != named:
            fail(f"{INDEX}: weight_map differs from the files' tensors")
    tensors = sum(len(t) for t in by_file.values())
    config = ""
    if os.path.exists(os.path.join(d, CONFIG)):
        config = check_config(d, {name: (dtype, shape)
                                  for t in by_file.values()
                                  for name, (dtype, shape, _, _) in t.items()})
    print(f"{len(files)} files, {tensors} tensors, {total} bytes: "
          f"as the specification says{config}")


def write(d):
    files = {
        "model-00001-of-00002.safetensors": [
            ("model.embed_tokens.weight", "BF16", [16, 8]),
            ("model.layers.0.self_attn.q_proj.weight", "F16", [8, 8]),
            ("model.layers.0.input_layernorm.weight", "F32", [8]),
        ],
        "model-00002-of-00002.safetensors": [
            ("model.layers.0.mlp.down_proj.weight", "BF16", [8, 12]),
            ("rotary.inv_freq", "F64", [4]),
            ("position_ids", "I64", [1, 5]),
            ("lm_head.weight", "BF16", [16, 8]),
            ("mask", "BOOL", [3]),
        ],
    }
    os.makedirs(d, exist_ok=True)
    described, total = {}, 0
    for fname, tensors in files.items():
        header, data = {"__metadata__": {"format": "pt", "by": "spec"}}, b""
        for name, dtype, shape in tensors:
            n = BITS[dtype] // 8
            for s in shape:
                n *= s
            header[name] = {"dtype": dtype, "shape": shape,
                            "data_offsets": [len(data), len(data) + n]}
            described[name] = [dtype, shape, fname, len(data), len(data) + n]
            data += bytes((len(data) + i) * 7 % 251 for i in range(n))
        text = json.dumps(header).encode()  # spaces after separators
        text += b" " * (-len(text) % 8)
        with open(os.path.join(d, fname), "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + data)
        total += len(data)
    with open(os.path.join(d, INDEX), "w") as f:
        json.dump({"metadata": {"total_size": total},
                   "weight_map": {k: v[2] for k, v in described.items()}}, f)
    print(json.dumps(described))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "write"):
        fail("usage: safetensors_spec.py check|write DIR")
    (check if sys.argv[1] == "check" else write)(sys.argv[2])
