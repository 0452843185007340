#!/usr/bin/env python3
"""Times PyTorch's reference kernels for efimsim-calibrate --compare-torch.

Usage: compare_torch.py REQUEST.json RESPONSE.json

The request lists cases; each is timed the way the harness times its own
kernels (docs/gpu-calibration.md): CUDA events around each launch, warm-up, median of
`reps` runs, an L2 flush and a short GPU sleep before every run so launch
latency is not counted.

  {"op": "matmul", "m", "n", "k"}: torch.matmul(A[m,k], W[n,k].t()), bf16
  {"op": "sdpa", "new_tokens", "context_tokens", "q_heads", "kv_heads",
   "head_dim"}: scaled_dot_product_attention restricted to the flash
   backend, one sequence, lower-right causal (new token i sees keys up to
   context + i), native GQA where PyTorch supports it.

The response has one entry per case: {"id", "time_us"} or {"id", "error"}.
Exits 3 when torch or a CUDA device is missing (the harness reports it and
continues).
"""
import json
import statistics
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001 - any import failure means "no torch"
        print(f"compare_torch: cannot import torch: {e}", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("compare_torch: torch sees no CUDA device", file=sys.stderr)
        return 3
    with open(sys.argv[1]) as f:
        req = json.load(f)
    warmup = int(req.get("warmup", 5))
    reps = max(20, int(req.get("reps", 25)))
    dev = torch.device("cuda")
    flush = torch.empty(int(req.get("flush_l2_bytes", 100 << 20)), dtype=torch.uint8, device=dev)
    props = torch.cuda.get_device_properties(dev)
    sleep_cycles = int(50e-6 * 1.98e9)  # about 50 us at the H100's boost clock

    def time_us(fn):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for i in range(reps):
            flush.fill_(i & 0xFF)
            torch.cuda._sleep(sleep_cycles)
            starts[i].record()
            fn()
            stops[i].record()
        torch.cuda.synchronize()
        return statistics.median(1000.0 * s.elapsed_time(e) for s, e in zip(starts, stops))

    def run_matmul(c):
        a = torch.empty(c["m"], c["k"], dtype=torch.bfloat16, device=dev).uniform_(-1, 1)
        w = torch.empty(c["n"], c["k"], dtype=torch.bfloat16, device=dev).uniform_(-1, 1)
        wt = w.t()
        return time_us(lambda: torch.matmul(a, wt)), {}

    def run_sdpa(c):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        n, ctx = c["new_tokens"], c["context_tokens"]
        hq, hkv, d = c["q_heads"], c["kv_heads"], c["head_dim"]
        q = torch.empty(1, hq, n, d, dtype=torch.bfloat16, device=dev).uniform_(-1, 1)
        k = torch.empty(1, hkv, ctx + n, d, dtype=torch.bfloat16, device=dev).uniform_(-1, 1)
        v = torch.empty_like(k).uniform_(-1, 1)
        note = {}
        if ctx == 0:
            mask, causal = None, True  # upper-left == lower-right when the lengths are equal
        else:
            from torch.nn.attention.bias import causal_lower_right
            mask, causal = causal_lower_right(n, ctx + n), False

        def call(kk, vv, gqa):
            kwargs = {"attn_mask": mask, "is_causal": causal}
            if gqa:
                kwargs["enable_gqa"] = True
            return F.scaled_dot_product_attention(q, kk, vv, **kwargs)

        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            if hkv == hq:
                return time_us(lambda: call(k, v, False)), note
            try:
                call(k, v, True)
                return time_us(lambda: call(k, v, True)), note
            except Exception as e:  # noqa: BLE001 - fall back to expanded KV heads
                ke = k.repeat_interleave(hq // hkv, dim=1)
                ve = v.repeat_interleave(hq // hkv, dim=1)
                note = {"note": f"native GQA unavailable ({type(e).__name__}); KV heads expanded"}
                return time_us(lambda: call(ke, ve, False)), note

    results = []
    for c in req["cases"]:
        try:
            if c["op"] == "matmul":
                us, extra = run_matmul(c)
            elif c["op"] == "sdpa":
                us, extra = run_sdpa(c)
            else:
                raise ValueError(f"unknown op {c['op']}")
            results.append({"id": c["id"], "time_us": us, **extra})
        except Exception as e:  # noqa: BLE001 - report per case, keep going
            results.append({"id": c["id"], "error": f"{type(e).__name__}: {e}"})
        torch.cuda.empty_cache()
    out = {"torch_version": torch.__version__, "device": props.name, "results": results}
    with open(sys.argv[2], "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
