/** A one-line progress bar on stderr, redrawn at most every 100 ms. */
export function progressBar() {
  let last = 0;
  let shown = false;
  return {
    update(done: number, total: number, what: string) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      shown = true;
      const width = 30;
      const frac = total > 0 ? Math.min(1, done / total) : 1;
      const fill = Math.round(frac * width);
      process.stderr.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${(frac * 100).toFixed(0).padStart(3)}% ${what}  `);
    },
    done() {
      if (shown) process.stderr.write('\r\x1b[K');
      shown = false;
    },
  };
}

