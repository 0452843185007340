#!/usr/bin/env python3
"""Writes a synthetic request-level trace in efimsim's format (traces/FORMAT.md)
to stdout, for the streaming-memory benchmark in tests/bench/README.md.

Open loop: Poisson arrivals at --rate requests/s; prompts of 128-1024 tokens
whose first 16-token blocks come from one of --system-prompts shared
prefixes (so the prefix cache has work to do), the rest unique; 1-16 output
tokens. Deterministic for a given --seed. Streams: constant memory, so it can
feed `efimsim replay --trace` through a pipe (mkfifo) without a file.
"""
import argparse
import json
import random
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1_000_000, help="records to write")
    parser.add_argument("--rate", type=float, default=60.0, help="mean arrivals per second")
    parser.add_argument("--system-prompts", type=int, default=8,
                        help="distinct shared prefixes (256 tokens each)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.requests < 0 or args.rate <= 0 or args.system_prompts < 1:
        parser.error("--requests >= 0, --rate > 0 and --system-prompts >= 1")

    rng = random.Random(args.seed)
    # 16 chained block keys per shared prefix (256 tokens), as decimal strings.
    prefixes = [[str((p + 1) * 1_000_003 + b) for b in range(16)]
                for p in range(args.system_prompts)]
    out = sys.stdout
    out.write(json.dumps({"type": "header", "schema_version": 1, "source": "synthetic",
                          "description": f"make_request_trace.py --requests {args.requests} "
                                         f"--rate {args.rate} --seed {args.seed}"},
                         separators=(",", ":")) + "\n")
    t_ns = 0
    lines = []
    for _ in range(args.requests):
        t_ns += int(rng.expovariate(args.rate) * 1e9)
        prompt = rng.randint(256, 1024)
        keys = ",".join('"%s"' % k for k in rng.choice(prefixes))
        lines.append('{"type":"request","arrival_ns":%d,"prompt_tokens":%d,"output_tokens":%d,'
                     '"block_key_tokens":16,"block_keys":[%s]}\n'
                     % (t_ns, prompt, rng.randint(1, 16), keys))
        if len(lines) >= 10000:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))


if __name__ == "__main__":
    main()
