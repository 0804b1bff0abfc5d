import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import fs from 'node:fs';
const n = Number(process.argv[2] ?? 5);
const extraEnv = process.argv[3] ? JSON.parse(process.argv[3]) : {};
const wall = [], cpu = [];
for (let k = 0; k < n; k++) {
  const t0 = performance.now();
  const t = new StdioClientTransport({ command: process.execPath, args: ['bin/mcpgw.js', 'serve', '--root', '/tmp', '--config', '/tmp/cache-cold/nocache.json'], stderr: 'pipe', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...extraEnv } });
  const c = new Client({ name: 'x', version: '1' });
  await c.connect(t);
  await c.listTools();
  wall.push(performance.now() - t0);
  const st = fs.readFileSync(`/proc/${t.pid}/stat`, 'latin1').split(') ')[1].split(' ');
  cpu.push((Number(st[11]) + Number(st[12])) * 10);
  await c.close();
}
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(0);
console.log(`wall median ${med(wall)} ms [${wall.map((x) => x.toFixed(0)).join(' ')}]; server CPU median ${med(cpu)} ms [${cpu.join(' ')}]`);
