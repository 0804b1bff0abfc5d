/**
 * Worker threads start with small semi-spaces even when the process was started with big ones (as `serve` is:
 * bin/mcpgw.js), while the main thread keeps its own. V8's flags are the process's, so each case runs in a Node
 * child started with 4 MiB semi-spaces. Uses the BUILT module (dist/): `npx tsc -b`.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { WORKER_SEMI_SPACE_MB } from '../../src/engine/scan/worker-heap';

const MODULE = path.resolve(__dirname, '..', '..', 'dist', 'engine', 'scan', 'worker-heap.js');
const MiB = 1024 * 1024;

/** The new space's size (bytes) of the main thread and of a worker thread started after `workerHeapFlags` or not. */
function newSpaces(callFirst: boolean): { main: number; worker: number } {
  const script = `
    const v8 = require('node:v8');
    const { Worker } = require('node:worker_threads');
    // after garbage enough for scavenges (both semi-spaces then committed)
    const newSpace = () => { let a; for (let i = 0; i < 2e5; i++) a = { i, s: 'x' + i }; return a && v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size; };
    if (${callFirst}) { const m = require(${JSON.stringify(MODULE)}); m.workerHeapFlags(); m.workerHeapFlags(); }
     const w = new Worker("const v8 = require('node:v8'); " + newSpace.toString().replace(/^/, 'const newSpace = ') + "; require('node:worker_threads').parentPort.postMessage(newSpace())", { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    w.once('message', (worker) => { console.log(JSON.stringify({ main: newSpace(), worker })); w.terminate(); });
  `;
  const r = spawnSync(process.execPath, ['--min-semi-space-size=4', '--max-semi-space-size=4', '-e', script], { encoding: 'utf8', timeout: 30000 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

test('without the flags a worker thread gets the process semi-spaces (the cost this saves)', () => {
  expect(newSpaces(false)).toEqual({ main: 8 * MiB, worker: 8 * MiB });
});

test('after workerHeapFlags a worker thread gets 2 semi-spaces of WORKER_SEMI_SPACE_MB; the main thread keeps its 2 x 4 MiB', () => {
  expect(WORKER_SEMI_SPACE_MB).toBe(1);
  expect(newSpaces(true)).toEqual({ main: 8 * MiB, worker: 2 * WORKER_SEMI_SPACE_MB * MiB });
});
