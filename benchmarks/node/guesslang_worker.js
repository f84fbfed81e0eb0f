// @vscode/vscode-languagedetection (guesslang's model) in its own process for benchmarks/compare.py.
// Same JSON-lines protocol as compare_worker.py: a "ready" line with load time (require, model
// load and one call), then one "results" line per {"op":"run"} request, "maxrss_mb" for "stats".
// tfjs's pure-JS CPU backend runs on the calling thread. Only runModel (and the file read) is timed.
'use strict';
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { ModelOperations } = require('@vscode/vscode-languagedetection');

const WARM = 'The quick brown fox jumps over the lazy dog.\ndef f(x):\n    return x + 1\n';
const cpuUs = (c) => c.user + c.system;

function dirBytes(dir) {
  return fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

async function main() {
  // minContentSize 0: answer every input (the default 20 characters would skip short files).
  const ops = new ModelOperations({ minContentSize: 0 });
  await ops.runModel(WARM);
  const pkgDir = path.dirname(require.resolve('@vscode/vscode-languagedetection/package.json'));
  const version = require('@vscode/vscode-languagedetection/package.json').version;
  const ready = {
    ready: true,
    load_ms: Number(process.hrtime.bigint() - t0) / 1e6,
    load_cpu_ms: cpuUs(process.cpuUsage(c0)) / 1e3,
    rss_mb: process.memoryUsage().rss / 2 ** 20,
    size_bytes: dirBytes(path.join(pkgDir, 'model')),
    version: `@vscode/vscode-languagedetection ${version} (node ${process.version})`,
  };
  process.stdout.write(JSON.stringify(ready) + '\n');
  if (process.argv.includes('--load-only')) return;
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    const req = JSON.parse(line);
    let resp;
    if (req.op === 'stats') {
      // VmHWM, not resourceUsage().maxRSS: Linux keeps ru_maxrss across exec (the parent's peak).
      const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
      resp = { maxrss_mb: hwm ? Number(hwm[1]) / 1024 : null };
    } else if (req.op === 'batch') {
      resp = { unsupported: true }; // runModel takes one text at a time
    } else {
      const results = [];
      for (const item of req.items) {
        const w = process.hrtime.bigint();
        const c = process.cpuUsage();
        const text = item.b64 !== undefined
          ? Buffer.from(item.b64, 'base64').toString('utf8')
          : fs.readFileSync(item.path, 'utf8');
        const r = await ops.runModel(text);
        const cpu = cpuUs(process.cpuUsage(c));
        const wall = Number(process.hrtime.bigint() - w) / 1e3;
        results.push({ pred: r.length ? [r[0].languageId] : null, wall_us: wall, cpu_us: cpu });
      }
      resp = { results };
    }
    process.stdout.write(JSON.stringify(resp) + '\n');
  }
}

main().catch((e) => { console.error(e); process.exit(2); });
