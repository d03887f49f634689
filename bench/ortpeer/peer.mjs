// ONNX Runtime, one thread, on the token ids Footnote's engine embedded
// (written by bench/cmd/ortpeer): pads each batch to its longest row as
// ONNX Runtime users do, mean-pools the last hidden state over real tokens
// and L2-normalises, as Footnote does, and reports process CPU time per
// passage over the timed batches (the first batch is a warm-up).
//
//   node peer.mjs MODEL.onnx IDS.json BATCH OUT.json
import fs from 'node:fs';
import ort from 'onnxruntime-node';

const [modelPath, idsPath, batchArg, outPath] = process.argv.slice(2);
const batch = Number(batchArg);
const { ids, pad_id: padID = 0 } = JSON.parse(fs.readFileSync(idsPath, 'utf8'));

const session = await ort.InferenceSession.create(modelPath, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
});

function feeds(rows) {
  const len = Math.max(...rows.map((r) => r.length));
  const size = rows.length * len;
  const inputIDs = new BigInt64Array(size).fill(BigInt(padID));
  const mask = new BigInt64Array(size);
  const types = new BigInt64Array(size);
  rows.forEach((row, i) => {
    row.forEach((id, j) => {
      inputIDs[i * len + j] = BigInt(id);
      mask[i * len + j] = 1n;
    });
  });
  const all = {
    input_ids: new ort.Tensor('int64', inputIDs, [rows.length, len]),
    attention_mask: new ort.Tensor('int64', mask, [rows.length, len]),
    token_type_ids: new ort.Tensor('int64', types, [rows.length, len]),
  };
  return Object.fromEntries(session.inputNames.map((n) => [n, all[n]]));
}

async function embed(rows) {
  const out = await session.run(feeds(rows));
  const t = out[session.outputNames[0]];
  const [, len, hidden] = t.dims;
  return rows.map((row, i) => {
    const sum = new Float64Array(hidden);
    for (let j = 0; j < row.length; j++) {
      const base = (i * len + j) * hidden;
      for (let k = 0; k < hidden; k++) sum[k] += t.data[base + k];
    }
    const norm = Math.hypot(...sum) || 1;
    return Array.from(sum, (v) => v / norm);
  });
}

await embed(ids.slice(0, batch)); // warm-up, outside the measurement
const start = process.cpuUsage();
const vectors = [];
for (let i = 0; i < ids.length; i += batch) vectors.push(...(await embed(ids.slice(i, i + batch))));
const used = process.cpuUsage(start);
fs.writeFileSync(
  outPath,
  JSON.stringify({ cpu_ms_per_passage: (used.user + used.system) / 1000 / ids.length, passages: ids.length, vectors, version: ort.env.versions?.common ?? '' }),
);
