#!/usr/bin/env python3
"""Writes the hand-made seed inputs of every fuzz target (README.md) into
OUT/<target>/. Seeds are small valid (and a few borderline) examples written
for this project; no third-party file is copied. Usage: make_seeds.py OUT"""

import gzip
import json
import os
import sys


def write(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def jl(*objs):
    return "".join(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n" for o in objs)


def efim_trace(out):
    h = {"type": "header", "schema_version": 1, "source": "typing", "description": "seed"}
    write(out, "efim_trace", "header_only", jl(h))
    session = jl(
        h,
        {"type": "session", "time_ns": 0, "session_id": "u0-s0", "user_id": "u0",
         "document_id": "a.py", "cursor_bytes": 3, "text": "ab\u00e9\ncd"},
        {"type": "edit", "time_ns": 10, "session_id": "u0-s0", "kind": "insert",
         "offset_bytes": 4, "text": "x\u20ac"},
        {"type": "edit", "time_ns": 10, "session_id": "u0-s0", "kind": "delete",
         "offset_bytes": 0, "length_bytes": 2},
        {"type": "edit", "time_ns": 20, "session_id": "u0-s0", "kind": "move_cursor",
         "offset_bytes": 1},
        {"type": "edit", "time_ns": 30, "session_id": "u0-s0", "kind": "completion_shown",
         "text": "sugg"},
        {"type": "edit", "time_ns": 31, "session_id": "u0-s0", "kind": "completion_accepted",
         "offset_bytes": 1, "text": "sugg"},
        {"type": "edit", "time_ns": 32, "session_id": "u0-s0", "kind": "completion_shown"},
        {"type": "edit", "time_ns": 33, "session_id": "u0-s0", "kind": "completion_rejected"},
        {"type": "edit", "time_ns": 40, "session_id": "u0-s0", "kind": "idle",
         "duration_ns": 1000},
        {"type": "edit", "time_ns": 50, "session_id": "u0-s0", "kind": "end"})
    write(out, "efim_trace", "session_all_kinds", session)
    write(out, "efim_trace", "session_all_kinds.gz", gzip.compress(session.encode(), mtime=0))
    write(out, "efim_trace", "text_file", jl(
        {"type": "header", "schema_version": 1},
        {"type": "session", "time_ns": 5, "session_id": "s", "user_id": "u",
         "document_id": "d", "cursor_bytes": 0, "text_file": "doc.txt"},
        {"type": "edit", "time_ns": 6, "session_id": "s", "kind": "insert",
         "offset_bytes": 0, "text": "# "}))
    write(out, "efim_trace", "requests", jl(
        {"type": "header", "schema_version": 1, "source": "azure-llm-csv"},
        {"type": "request", "arrival_ns": 0, "prompt_tokens": 3, "output_tokens": 0,
         "token_ids": [1, 2, 2147483647]},
        {"type": "request", "arrival_ns": 52000000, "session_id": "s1", "prompt_tokens": 40,
         "output_tokens": 6, "block_key_tokens": 16,
         "block_keys": ["18446744073709551615", 9007199254740993]},
        {"type": "request", "arrival_ns": 52000000, "prompt_tokens": 1, "output_tokens": 1}))
    # Escapes, blank lines, CRLF and spaces the reader accepts.
    write(out, "efim_trace", "escapes_blank_lines",
          '{"type":"header","schema_version":1,"source":"\\u00e9\\ud83d\\ude00"}\r\n'
          '\n   \n'
          '{ "type" : "session", "time_ns" : 0, "session_id" : "\\"q\\"", "user_id" : "u",'
          ' "document_id" : "d", "cursor_bytes" : 4, "text" : "\\ud83d\\ude00\\n\\t" }\n')


def importers(out):
    # Byte 0: importer (see fuzz_importers.cc); 4 = auto-detect.
    azure = ("TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
             "2023-11-16 18:17:03.9799600,4808,10\r\n"
             "2023-11-16 18:17:04.0319600,3180,8\r\n")
    write(out, "importers", "azure", b"\x00" + azure.encode())
    write(out, "importers", "azure_auto", b"\x04" + azure.encode())
    write(out, "importers", "azure_reordered",
          b"\x00" + b"GeneratedTokens,TIMESTAMP,ContextTokens\n7,2024-01-01 00:00:00,1\n"
          b"0,2024-01-01 00:00:00.1,2\n")
    mooncake = jl({"timestamp": 0, "input_length": 600, "output_length": 6, "hash_ids": [0, 1]},
                  {"timestamp": 25, "input_length": 520, "output_length": 1, "hash_ids": [0, 9]},
                  {"timestamp": 25, "input_length": 15, "output_length": 0,
                   "hash_ids": [18446744073709551615]})
    write(out, "importers", "mooncake", b"\x01" + mooncake.encode())
    write(out, "importers", "mooncake_512", bytes([1 | (1 << 5)]) + mooncake.encode())
    write(out, "importers", "mooncake_auto_gz", b"\x04" + gzip.compress(mooncake.encode(), mtime=0))
    tt = ('date,timestamp,fileName,fragment,other\n'
          '2019-12-20T13:47:36.596+03:00,0,main.cpp,"int main() {\n}\n",x\n'
          '2019-12-20T13:47:37.658+03:00,14,main.cpp,"int main() {\n}\n",x\n'
          '2019-12-20T13:47:37.704+03:00,21,main.cpp,"int main() {\n  \u00e9\n}\n","a,b"\n'
          '2019-12-20T13:47:38.004+03:00,30,main.cpp,"int main() {\n  \u00ea""\n}\n",x\n'
          '2019-12-20T10:47:39.000Z,31,main.cpp,"",x\n')
    write(out, "importers", "tasktracker", b"\x02" + tt.encode())
    write(out, "importers", "tasktracker_auto", b"\x04" + tt.encode())
    he = jl({"task_id": "T/0", "prompt": "def f():\n", "suffix": "\n",
             "canonical_solution": "  \u00e9\U0001F600", "test": "ignored", "entry_point": "f"},
            {"task_id": "T/1", "prompt": "a", "suffix": "b", "canonical_solution": ""},
            {"task_id": "T/2", "prompt": "", "suffix": "", "canonical_solution": "x\ny"})
    write(out, "importers", "humaneval", b"\x03" + he.encode())
    write(out, "importers", "humaneval_2users", bytes([3 | (1 << 3)]) + he.encode())
    write(out, "importers", "humaneval_fast_4users",
          bytes([3 | (3 << 3) | (3 << 5)]) + gzip.compress(he.encode(), mtime=0))
    write(out, "importers", "humaneval_auto", b"\x04" + he.encode())


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    efim_trace(out)
    importers(out)
    for extra in EXTRA:
        extra(out)


REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def minified(path):
    """A project JSON file, minified (smaller seeds mutate faster)."""
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        doc = json.load(f)
    if isinstance(doc, dict):
        doc.pop("_comment", None)
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def edit_int(mode, value=0):
    """An Int of fuzz_edited_document.cc: mode % 6 and its operand."""
    if mode == 5:
        return bytes([5]) + (value & (2**64 - 1)).to_bytes(8, "big")
    return bytes([mode, value & 0xFF])


def edited_document(out):
    def doc(text, cursor_int, edits):
        t = text.encode("utf-8") if isinstance(text, str) else text
        data = bytes([len(t)]) + t + cursor_int
        for kind, off, length, etext in edits:
            e = etext.encode("utf-8") if isinstance(etext, str) else etext
            data += bytes([kind]) + off + length + bytes([len(e)]) + e
        return data
    z = edit_int(0, 0)
    # kinds: 0 insert, 1 delete, 2 move_cursor, 3 shown, 4 accepted, 5 rejected, 6 idle, 7 end
    write(out, "edited_document", "typing", doc("def f():\n", edit_int(1, 1), [
        (0, edit_int(2, 0), z, "  r"), (0, edit_int(2, 0), z, "eturn \u00e9"),
        (1, edit_int(2, 254), edit_int(0, 2), ""), (2, edit_int(0, 0), z, ""),
        (4, edit_int(1, 0), z, "\U0001F600"), (3, z, z, "x"), (5, z, z, ""),
        (6, z, z, ""), (7, z, z, "")]))
    write(out, "edited_document", "multibyte_boundaries", doc("a\u00e9\u20ac\U0001F600b", edit_int(0, 3), [
        (0, edit_int(0, 2), z, "x"), (1, edit_int(0, 1), edit_int(0, 3), ""),
        (2, edit_int(1, 1), z, ""), (1, edit_int(0, 1), edit_int(0, 2), ""),
        (0, edit_int(0, 4), z, b"\xc3"), (1, edit_int(0, 0), edit_int(3, 0), "")]))
    write(out, "edited_document", "extremes", doc("", edit_int(0, 0), [
        (0, edit_int(4, 0), z, "a"), (1, edit_int(0, 0), edit_int(3, 0), ""),
        (1, edit_int(5, 2**63 - 1), edit_int(5, 2**63 - 1), ""),
        (2, edit_int(5, 2**64 - 1), z, ""), (0, edit_int(0, 0), z, "")]))
    write(out, "edited_document", "invalid_initial_text", doc(b"ab\xed\xa0\x80", edit_int(0, 0), []))
    write(out, "edited_document", "cursor_inside_char", doc("\u00e9", edit_int(0, 1), []))


def specs(out):
    for i, path in enumerate(sorted(os.listdir(os.path.join(REPO, "models", "specs")))):
        write(out, "specs", "model_" + path[:-5], "\x00" + minified("models/specs/" + path))
    for path in sorted(os.listdir(os.path.join(REPO, "models", "gpus"))):
        write(out, "specs", "gpu_" + path[:-5], "\x01" + minified("models/gpus/" + path))
    write(out, "specs", "profile_synthetic",
          "\x02" + minified("tests/models/testdata/synthetic_profile_llama-3.1-8b_h100-sxm.json"))
    write(out, "specs", "measured_steps_synthetic",
          "\x03" + minified("tests/models/testdata/synthetic_measured_steps.json"))
    write(out, "specs", "measured_steps_modes", "\x03" + json.dumps([
        {"kind": "mixed", "sequences": [{"new_tokens": 256, "context_tokens": 2048},
                                        {"new_tokens": 1, "context_tokens": 900, "emits_token": True}],
         "measured_ms": 14.0, "mode": "graph"},
        {"kind": "prefill", "sequences": [{"new_tokens": 2, "context_tokens": 0,
                                           "emits_token": False}], "measured_ms": 1e-3,
         "mode": "eager"}], separators=(",", ":")))
    hf = os.path.join(REPO, "tests", "models", "testdata", "hf")
    for name in sorted(os.listdir(hf)):
        config = os.path.join("tests", "models", "testdata", "hf", name, "config.json")
        if os.path.isfile(os.path.join(REPO, config)):
            write(out, "specs", "hf_" + name, "\x04" + minified(config))


def tokenizer(out):
    write(out, "tokenizer", "json_tiny", "\x00" + minified("tests/tokenizer/testdata/tiny_tokenizer.json"))
    write(out, "tokenizer", "json_string_merges",
          "\x00" + minified("tests/tokenizer/testdata/tiny_tokenizer_string_merges.json"))
    code = "def hello_world(x):\n    return x + 12345  # it's 'll \u00e9t\u00e9\r\n\t\n   \n"
    special = "<|fim_prefix|>a<|fim_suffix|>b<sep>!<sep><|fim_middle|><|fim_"
    uni = "\u4e2d\u6587 \U0001F468\u200d\U0001F469 \u0663\u0664 \u017f\u212a \ufeff\u2028\u0085 e\u0301"
    for mode in (1, 2, 3, 7):
        write(out, "tokenizer", "text_code_%d" % mode, bytes([mode]) + code.encode())
        write(out, "tokenizer", "text_special_%d" % mode, bytes([mode]) + special.encode())
        write(out, "tokenizer", "text_unicode_%d" % mode, bytes([mode]) + uni.encode())
    write(out, "tokenizer", "text_invalid_utf8_1", b"\x01ab\xff\xc3(\xe2\x82\xed\xa0\x80\xf4\x90\x80\x80z")
    write(out, "tokenizer", "text_invalid_utf8_3", b"\x03\xf0\x9f\x98 x\xc0\xaf")
    write(out, "tokenizer", "text_spaces_3", b"\x03" + b" " * 200 + b"\t\t\n\n" + b"1" * 40)


def sweep_inputs(out):
    """Byte 0 % 4: 0 merge (byte 0 // 4 % 4 + 1 shard files, split at NUL),
    1 --grid, 2 --shard, 3 --slo (fuzz_sweep_inputs.cc)."""
    header = ("run_index,run_id,grid_size,policy,users,rounds,seed,documents,"
              "requests_completed,ttft_p99_ms,throughput_rps\n")
    rows = ["%d,run-%04d,4,%s,%d,1,1,synthetic,%d,%.3f,%.6f\n"
            % (i, i, ("fim", "efim")[i % 2], 1 + i // 2, 1 + i // 2, 12.5 * (i + 1), 3.25 / (i + 1))
            for i in range(4)]
    whole = header + "".join(rows)
    write(out, "sweep_inputs", "merge_whole", b"\x00" + whole.encode())
    shard0 = header + rows[0] + rows[2]
    shard1 = header + rows[1] + rows[3]
    write(out, "sweep_inputs", "merge_two_shards", b"\x04" + (shard0 + "\0" + shard1).encode())
    write(out, "sweep_inputs", "merge_overlap", b"\x08" + (shard0 + "\0" + shard1 + "\0" + shard0).encode())
    write(out, "sweep_inputs", "merge_missing_run", b"\x04" + (shard0 + "\0" + header).encode())
    write(out, "sweep_inputs", "merge_crlf", b"\x00" + whole.replace("\n", "\r\n").encode())
    for name, axis in [("grid_users", "users=1,2,4,8"), ("grid_policy", "policy=baseline,fim,spm,efim"),
                       ("grid_tokens", "max_num_batched_tokens=512,2048,8192"),
                       ("grid_double", "think-time-ms=0,0.5,1e3"), ("grid_bool", "cancel_stale=true,false")]:
        write(out, "sweep_inputs", name, "\x01" + axis)
    for name, shard in [("shard", "0/4"), ("shard_last", "3/4"), ("shard_one", "0/1")]:
        write(out, "sweep_inputs", name, "\x02" + shard)
    for name, slo in [("slo_ttft", "ttft_p99_ms=500"), ("slo_dashes", "tpot-p99-ms=50"),
                      ("slo_exponent", "e2e_mean_ms=2.5e3")]:
        write(out, "sweep_inputs", name, "\x03" + slo)


def calibrate_json(out):
    """The model specs, as efimsim-calibrate --model-spec reads them, and a
    few documents exercising the parser (escapes, nesting, numbers)."""
    for path in sorted(os.listdir(os.path.join(REPO, "models", "specs"))):
        write(out, "calibrate_json", "model_" + path[:-5], minified("models/specs/" + path))
    write(out, "calibrate_json", "escapes_numbers",
          '{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"x\\n\\u00e9\\ud83d\\ude00\\"\\/"},'
          '"d":-0,"e":1e-300,"f":[[[]]],"g":{}}')


EXTRA = [edited_document, specs, tokenizer, sweep_inputs, calibrate_json]

if __name__ == "__main__":
    main()
