/**
 * The allocator trim (native/malloc-trim.c, src/engine/memory.ts trimAllocator): where it can be built (Linux, glibc,
 * a C compiler), it gives back the free pages glibc keeps resident under a block still in use near the top of its
 * heap — what a 64-client load left behind (docs/decisions.md "Memory is given back at close"); elsewhere it is a
 * no-op that says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { trimAllocator } from '../../src/engine/memory';

const addon = path.join(__dirname, '..', '..', 'dist', 'native', 'malloc-trim.node');
const buildable = process.platform === 'linux' && spawnSync(process.env.CC || 'cc', ['--version']).status === 0;

/** Resident set size of this process, bytes (/proc/self/statm, field 2, in pages of 4 KiB). */
function rss(): number {
  return Number(fs.readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * 4096;
}

if (buildable) {
  test('built here, it gives back free heap pages that stay resident under a live block', () => {
    expect(fs.existsSync(addon)).toBe(true);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    trimAllocator();
    // 64 MiB in 16 KiB blocks (below glibc's mmap threshold: from the heap), then one live block above them all
    let blocks: Buffer[] | null = Array.from({ length: 4096 }, () => Buffer.allocUnsafeSlow(16 * 1024).fill(1));
    const pin = Buffer.allocUnsafeSlow(1024).fill(2);
    blocks = null;
    gc();
    gc();
    const before = rss();
    expect(trimAllocator()).toBe(true);
    const released = before - rss();
    expect(pin[0]).toBe(2);
    // nearly all of the 64 MiB freed under the pin comes back
    expect(released).toBeGreaterThan(48 * 1024 * 1024);
  });
} else {
  test('not buildable here (no Linux, glibc or C compiler): a no-op that says nothing was released', () => {
    expect(trimAllocator()).toBe(false);
  });
}
