#!/usr/bin/env python3
"""Fits the calibrated fallback latency model's per-class efficiency curves.

Reads NVIDIA AIConfigurator's measured vLLM kernel tables
(../shared/data/gpu/aiconfigurator, bf16, first row per key, as its README
says), fits one curve per operator class on the GPUs that were measured, runs
the leave-one-GPU-out study, prints the tables and writes
models/fallback/efficiency.json (coefficients, inputs with sha256, study,
command). Python 3 standard library only; the output is the same bytes on
every run.

    python3 notebooks/fit_fallback.py [--data DIR] [--out FILE]

Functional form (docs/fallback.md): for an operator of F FLOPs and B bytes on
a GPU of datasheet ceilings P (FLOP/s) and W (bytes/s),

    t = t0 + (tf^p + tb^p)^(1/p),   tf = F / (eta_f P),   tb = B / (eta_b W)
    efficiency = max(F / P, B / W) / t

four parameters per class (t0 seconds, eta_f, eta_b, p). All-reduces use the
same form with F = 0, B = the ring's 2 (tp - 1) / tp x bytes and W = the
GPU's interconnect figure. Elementwise operators have no measured table:
their coefficients are AIConfigurator's own analytic constants (0.8 of the
datasheet bandwidth plus 3 us), not a fit.
"""

import argparse
import csv
import hashlib
import json
import math
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA = os.path.join(os.path.dirname(REPO), "shared", "data", "gpu", "aiconfigurator")
DEFAULT_OUT = os.path.join(REPO, "models", "fallback", "efficiency.json")
DATA_LABEL = "../shared/data/gpu/aiconfigurator"

# AIConfigurator system -> (efimsim GPU spec, vLLM table directory). The
# vLLM versions are the newest holding each table (the data README);
# L40S's all-reduce table is only in vllm-0.22.0.
SYSTEMS = [
    ("a100_sxm", "a100-sxm-80g", "vllm-0.14.0", "vllm-0.14.0"),
    ("b200_sxm", "b200", "vllm-0.24.0", "vllm-0.24.0"),
    ("h100_sxm", "h100-sxm", "vllm-0.24.0", "vllm-0.24.0"),
    ("h200_sxm", "h200", "vllm-0.24.0", "vllm-0.24.0"),
    ("l40s", "l40s", "vllm-0.24.0", "vllm-0.22.0"),
]
# GPUs without NVLink: their custom all-reduce rows (over PCIe, tp up to 8)
# measure a path vLLM does not take in serving (its custom all-reduce needs
# NVLink beyond 2 GPUs), so they are held out of the all-reduce fit; the
# study still predicts them.
PCIE_ONLY = ["l40s"]
EVAL_MODELS = ["llama-3.1-8b", "qwen2.5-coder-7b", "deepseek-coder-6.7b", "qwen3-32b"]
CLASSES = ["gemm", "prefill_attention", "decode_attention", "all_reduce"]
DTYPE_BYTES = 2.0
# Training rows per GPU and class at most (every k-th key in file order):
# keeps a fit to seconds in pure Python.
MAX_TRAIN_ROWS = 3000
# Elementwise: AIConfigurator's analytic model (systems.csv
# mem_bw_empirical_scaling_factor, mem_empirical_constant_latency).
ELEMENTWISE = {"t0_us": 3.0, "eta_flops": 1.0, "eta_bytes": 0.8, "p": 1.0}


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def first_rows(path, key_columns, keep=lambda row: True):
    """{key: latency seconds}: the first row of each key in file order."""
    table = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if not keep(row):
                continue
            key = tuple(int(row[c]) for c in key_columns)
            if key not in table:
                table[key] = float(row["latency"]) * 1e-3
    return table


def full_attention(row):
    return (row["attn_dtype"] == "bfloat16" and row["kv_cache_dtype"] == "bfloat16"
            and int(row.get("window_size") or 0) == 0)


def load_gpu_spec(name):
    with open(os.path.join(REPO, "models", "gpus", name + ".json")) as handle:
        spec = json.load(handle)
    return {
        "name": name,
        "flops": spec["datasheet_bf16_dense_tflops"] * 1e12,
        "bytes": spec["datasheet_hbm_tbps"] * 1e12,
        "link": spec["interconnect_gbps"] * 1e9,
        "ach_flops": spec["achievable_bf16_tflops"] * 1e12,
        "ach_bytes": spec["achievable_hbm_tbps"] * 1e12,
        "link_latency": spec["interconnect_latency_us"] * 1e-6,
    }


# Work formulas: the same as models/latency/operator_work.h (one launch, one layer).
def gemm_work(m, n, k):
    return 2.0 * m * n * k, (k * n + m * k + m * n) * DTYPE_BYTES


def attention_work(q_heads, kv_heads, head_dim, new, context):
    q_width, kv_width = q_heads * head_dim, kv_heads * head_dim
    flops = 4.0 * q_width * new * (context + (new + 1.0) / 2.0)
    data = ((context + new) * 2.0 * kv_width + 2.0 * new * q_width) * DTYPE_BYTES
    return flops, data


def load_tables(data_dir):
    """{gpu: {class: {key: (flops, bytes, seconds)}}}, and the files read."""
    tables, inputs = {}, []
    for system, gpu, version, ar_version in SYSTEMS:
        base = os.path.join(data_dir, system, version)
        paths = {
            "gemm": os.path.join(base, "gemm.csv"),
            "prefill_attention": os.path.join(base, "context_attention.csv"),
            "decode_attention": os.path.join(base, "generation_attention.csv"),
            "all_reduce": os.path.join(data_dir, system, ar_version, "custom_allreduce.csv"),
        }
        heads = ["num_heads", "num_key_value_heads", "head_dim"]
        raw = {
            "gemm": first_rows(paths["gemm"], ["m", "n", "k"],
                               lambda r: r["gemm_dtype"] == "bfloat16"),
            "prefill_attention": first_rows(paths["prefill_attention"],
                                            ["batch_size", "isl"] + heads, full_attention),
            "decode_attention": first_rows(paths["decode_attention"],
                                           ["batch_size", "step"] + heads, full_attention),
            # AIConfigurator drops eager rows and keys by (num_gpus, elements).
            "all_reduce": first_rows(paths["all_reduce"], ["num_gpus", "message_size"],
                                     lambda r: not r["backend"].endswith("_eager")),
        }
        tables[gpu] = {cls: {key: work_of(cls, key) + (sec,) for key, sec in raw[cls].items()}
                       for cls in CLASSES}
        for cls in CLASSES:
            inputs.append({"file": os.path.relpath(paths[cls], data_dir), "gpu": gpu,
                           "class": cls, "keys": len(raw[cls]), "sha256": sha256(paths[cls])})
    return tables, inputs


def work_of(cls, key):
    """(flops, bytes) of a table key; all-reduce: (0, ring bytes per link)."""
    if cls == "gemm":
        return gemm_work(*key)
    if cls == "prefill_attention":
        batch, isl, hq, hkv, hd = key
        flops, data = attention_work(hq, hkv, hd, isl, 0.0)
        return batch * flops, batch * data
    if cls == "decode_attention":
        batch, step, hq, hkv, hd = key  # attends step cached tokens + itself
        flops, data = attention_work(hq, hkv, hd, 1.0, step)
        return batch * flops, batch * data
    tp, elements = key
    return 0.0, 2.0 * (tp - 1.0) / tp * elements * DTYPE_BYTES


# The model: t = t0 + (tf^p + tb^p)^(1/p); theta = log of (t0, eta_f, eta_b, p - 1).
def predict(coef, flops, data, gpu, cls):
    compute, bandwidth = ceilings(gpu, cls)
    tf = flops / (coef["eta_flops"] * compute)
    tb = data / (coef["eta_bytes"] * bandwidth)
    p = coef["p"]
    big = max(tf, tb)
    if big <= 0.0:
        return coef["t0_us"] * 1e-6
    return coef["t0_us"] * 1e-6 + big * ((tf / big) ** p + (tb / big) ** p) ** (1.0 / p)


def ceilings(gpu, cls):
    return gpu["flops"], gpu["link"] if cls == "all_reduce" else gpu["bytes"]


def coef_of(theta):
    return {"t0_us": math.exp(theta[0]), "eta_flops": math.exp(theta[1]),
            "eta_bytes": math.exp(theta[2]), "p": 1.0 + math.exp(theta[3])}


def thin(points):
    step = max(1, -(-len(points) // MAX_TRAIN_ROWS))
    return points[::step]


def residuals(theta, sets, cls):
    coef = coef_of(theta)
    out = []
    for gpu, points, weight in sets:
        for flops, data, seconds in points:
            out.append(weight * math.log(predict(coef, flops, data, gpu, cls) / seconds))
    return out


def solve(matrix, vector):
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= factor * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def fit(tables, gpus, cls):
    """Levenberg-Marquardt on log(predicted / measured), each GPU weighted equally."""
    sets = []
    for gpu in gpus:
        if cls == "all_reduce" and gpu["name"] in PCIE_ONLY:
            continue
        points = thin(list(tables[gpu["name"]][cls].values()))
        sets.append((gpu, points, 1.0 / math.sqrt(len(points))))
    free = [0, 2] if cls == "all_reduce" else [0, 1, 2, 3]
    theta = [math.log(5.0), math.log(0.7), math.log(0.8), math.log(1.0)]
    r = residuals(theta, sets, cls)
    cost, damping = sum(x * x for x in r), 1e-3
    for _ in range(200):
        jac = []
        for i in free:
            shifted = theta[:]
            shifted[i] += 1e-6
            jac.append([(a - b) / 1e-6 for a, b in zip(residuals(shifted, sets, cls), r)])
        jtj = [[sum(a * b for a, b in zip(ji, jk)) for jk in jac] for ji in jac]
        jtr = [sum(a * b for a, b in zip(ji, r)) for ji in jac]
        improved = False
        while damping < 1e10:
            # Marquardt scaling; the floor keeps a parameter the data do not
            # constrain (eta_flops of decode attention) from a singular system.
            floor = 1e-9 * max(jtj[i][i] for i in range(len(free)))
            lhs = [[jtj[i][k] + (damping * max(jtj[i][i], floor) if i == k else 0.0)
                    for k in range(len(free))] for i in range(len(free))]
            step = solve(lhs, [-x for x in jtr])
            trial = theta[:]
            for i, delta in zip(free, step):
                trial[i] += delta
            trial_r = residuals(trial, sets, cls)
            trial_cost = sum(x * x for x in trial_r)
            if trial_cost < cost:
                improved = cost - trial_cost > 1e-12 * cost
                theta, r, cost, damping = trial, trial_r, trial_cost, max(damping / 10.0, 1e-9)
                break
            damping *= 10.0
        if not improved:
            break
    coef = coef_of(theta)
    if cls == "all_reduce":  # no FLOPs: eta_flops and p are unused
        coef["eta_flops"], coef["p"] = 1.0, 1.0
    return {k: float("%.6g" % v) for k, v in coef.items()}


def load_model(name):
    with open(os.path.join(REPO, "models", "specs", name + ".json")) as handle:
        spec = json.load(handle)
    return spec


def shards(spec):
    """Per-GPU shapes at each TP the model allows (models/latency/operator_work.cc ShardModel)."""
    out = []
    for tp in (1, 2, 4, 8):
        q, kv, ffn = spec["q_heads"], spec["kv_heads"], spec["ffn_size"]
        if q % tp or ffn % tp or (kv >= tp and kv % tp) or (kv < tp and tp % kv):
            continue
        out.append({"tp": tp, "hidden": spec["hidden_size"], "q": q // tp,
                    "kv": kv // tp if kv >= tp else 1, "hd": spec["head_dim"], "ffn": ffn // tp,
                    "vocab": -(-spec["vocab_size"] // tp), "gated": spec["mlp"] == "gated"})
    return out


def eval_keys(table_keys, models):
    """Table keys (per class) at the shapes of the models' layers, any TP."""
    keys = {cls: set() for cls in CLASSES}
    ms = sorted({k[0] for k in table_keys["gemm"]})
    batches = sorted({k[0] for k in table_keys["decode_attention"]})
    steps = sorted({k[1] for k in table_keys["decode_attention"]})
    isls = sorted({k[1] for k in table_keys["prefill_attention"]})
    for spec in models:
        for s in shards(spec):
            qw, kvw = s["q"] * s["hd"], s["kv"] * s["hd"]
            up = 2 * s["ffn"] if s["gated"] else s["ffn"]
            for n, k in [(qw + 2 * kvw, s["hidden"]), (s["hidden"], qw), (up, s["hidden"]),
                         (s["hidden"], s["ffn"]), (s["vocab"], s["hidden"])]:
                keys["gemm"].update((m, n, k) for m in ms)
            heads = (s["q"], s["kv"], s["hd"])
            keys["prefill_attention"].update((1, isl) + heads for isl in isls)
            keys["decode_attention"].update((b, st) + heads for b in batches for st in steps)
            if s["tp"] > 1:
                keys["all_reduce"].update((s["tp"], t * s["hidden"]) for t in range(1, 32769))
    return {cls: sorted(keys[cls] & set(table_keys[cls])) for cls in CLASSES}


def roofline(gpu, cls, flops, data):
    """The bare roofline model at the GPU's achievable ceilings (roofline_latency_model.cc)."""
    if cls == "all_reduce":
        return data / gpu["link"] + gpu["link_latency"]
    return max(flops / gpu["ach_flops"], data / gpu["ach_bytes"])


def stats(errors):
    """median and p90 (nearest rank) of |error|, and the median signed error."""
    if not errors:
        return {"points": 0}
    mags = sorted(abs(e) for e in errors)
    signed = sorted(errors)
    rank = lambda q: mags[max(0, math.ceil(q * len(mags)) - 1)]
    return {"points": len(errors), "median": round(rank(0.5), 4), "p90": round(rank(0.9), 4),
            "median_signed": round(signed[(len(signed) - 1) // 2], 4)}


def leave_one_out(tables, gpus, models):
    study, pooled = {}, {}
    for cls in CLASSES:
        study[cls], pooled[cls] = {}, {"fallback": [], "roofline": []}
        for held in gpus:
            coef = fit(tables, [g for g in gpus if g is not held], cls)
            table = tables[held["name"]]
            keys = eval_keys({c: table[c].keys() for c in CLASSES}, models)[cls]
            errs = {"fallback": [], "roofline": []}
            for key in keys:
                flops, data, seconds = table[cls][key]
                errs["fallback"].append(predict(coef, flops, data, held, cls) / seconds - 1.0)
                errs["roofline"].append(roofline(held, cls, flops, data) / seconds - 1.0)
            for which in errs:
                pooled[cls][which] += errs[which]
            study[cls][held["name"]] = {"fallback": stats(errs["fallback"]),
                                        "roofline": stats(errs["roofline"]),
                                        "coefficients_without_it": coef}
        pooled[cls] = {w: stats(e) for w, e in pooled[cls].items()}
    return study, pooled


def print_study(study, pooled, coefficients):
    print("coefficients (fit on all measured GPUs; t0 in us):")
    for cls, coef in coefficients.items():
        print("  %-18s t0=%-8g eta_flops=%-8g eta_bytes=%-8g p=%g" %
              (cls, coef["t0_us"], coef["eta_flops"], coef["eta_bytes"], coef["p"]))
    print("\nleave-one-GPU-out |error| at model shapes: median / p90 (signed median)")
    print("%-18s %-13s %6s  %-24s %-24s" % ("class", "held-out GPU", "points", "fallback",
                                           "bare roofline"))
    fmt = lambda s: "%5.1f%% / %5.1f%% (%+.1f%%)" % (100 * s["median"], 100 * s["p90"],
                                                     100 * s["median_signed"])
    for cls in CLASSES:
        for gpu, row in study[cls].items():
            if row["fallback"]["points"]:
                print("%-18s %-13s %6d  %-24s %-24s" % (cls, gpu, row["fallback"]["points"],
                                                        fmt(row["fallback"]),
                                                        fmt(row["roofline"])))
        print("%-18s %-13s %6d  %-24s %-24s" % (cls, "(pooled)", pooled[cls]["fallback"]["points"],
                                                fmt(pooled[cls]["fallback"]),
                                                fmt(pooled[cls]["roofline"])))


def build_document(coefficients, study, pooled, inputs, gpus):
    """The JSON the C++ fallback reads (models/latency/calibrated_fallback_io.cc)."""
    classes = {}
    for cls, coef in coefficients.items():
        entry = dict(coef)
        if cls == "elementwise":
            entry["source"] = ("not fitted (no measured table): AIConfigurator's analytic "
                               "constants, datasheet bandwidth x 0.8 plus 3 us per launch")
        else:
            entry["source"] = "fitted"
            entry["leave_one_out"] = {"fallback": pooled[cls]["fallback"],
                                      "roofline": pooled[cls]["roofline"]}
        classes[cls] = entry
    return {
        "schema_version": 1,
        "form": ("t = t0 + (tf^p + tb^p)^(1/p), tf = FLOPs / (eta_flops x datasheet compute), "
                 "tb = bytes / (eta_bytes x datasheet bandwidth); all_reduce: bytes = "
                 "2 (tp - 1) / tp x message bytes over interconnect_gbps, no FLOPs"),
        "ceilings": "datasheet_bf16_dense_tflops, datasheet_hbm_tbps; interconnect_gbps for all_reduce",
        "fitted_on": [g["name"] for g in gpus],
        "all_reduce_fitted_on": [g["name"] for g in gpus if g["name"] not in PCIE_ONLY],
        "source": ("NVIDIA AIConfigurator vLLM kernel tables (" + DATA_LABEL +
                   "), bf16, full attention, CUDA-graph all-reduce, first row per key"),
        "command": "python3 notebooks/fit_fallback.py",
        "classes": classes,
        "study": {"method": ("leave one GPU out: fit on the other four, predict the held-out "
                             "GPU's table entries at the shapes of " + ", ".join(EVAL_MODELS) +
                             " (any TP of 1, 2, 4, 8 they allow); |predicted / measured - 1|"),
                  "classes": study},
        "checks": checks(coefficients, gpus),
        "inputs": inputs,
    }


def checks(coefficients, gpus):
    """Seconds this script predicts at a few works, for the C++ reader's test
    (models must agree to 1e-9 relative): small, middle and large works."""
    out = []
    h100 = next(g for g in gpus if g["name"] == "h100-sxm")
    works = {
        "gemm": [gemm_work(1, 4096, 4096), gemm_work(256, 6144, 4096), gemm_work(8192, 28672, 4096)],
        "prefill_attention": [attention_work(32, 8, 128, n, 0.0) for n in (16, 1024, 16384)],
        "decode_attention": [(b * f, b * d) for b, (f, d) in
                             ((1, attention_work(32, 8, 128, 1.0, 127.0)),
                              (64, attention_work(32, 8, 128, 1.0, 4095.0)),
                              (256, attention_work(64, 1, 128, 1.0, 16383.0)))],
        "all_reduce": [work_of("all_reduce", (tp, e)) for tp, e in ((2, 4096), (4, 4 << 20), (8, 1 << 28))],
        "elementwise": [(0.0, 2.0 * 4096 * 2.0 * t) for t in (1, 512, 65536)],
    }
    for cls, pairs in works.items():
        for flops, data in pairs:
            seconds = predict(coefficients[cls], flops, data, h100, cls)
            out.append({"class": cls, "gpu": "h100-sxm", "flops": flops, "bytes": data,
                        "seconds": float("%.15g" % seconds)})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA, help="AIConfigurator CSV folder")
    parser.add_argument("--out", default=DEFAULT_OUT, help="coefficients JSON to write")
    args = parser.parse_args()
    gpus = [load_gpu_spec(gpu) for _, gpu, _, _ in SYSTEMS]
    models = [load_model(name) for name in EVAL_MODELS]
    tables, inputs = load_tables(args.data)
    coefficients = {cls: fit(tables, gpus, cls) for cls in CLASSES}
    coefficients["elementwise"] = dict(ELEMENTWISE)
    study, pooled = leave_one_out(tables, gpus, models)
    print_study(study, pooled, coefficients)
    document = build_document(coefficients, study, pooled, inputs, gpus)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as handle:
        handle.write(json.dumps(document, indent=2) + "\n")
    print("\nwrote " + os.path.relpath(args.out, REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
