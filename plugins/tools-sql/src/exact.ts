const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** A decimal numeral without trailing fractional zeros (`240.50` → `240.5`, `3.00` → `3`). */
export function plainDecimal(text: string): string {
  if (!text.includes('.')) return text;
  const out = text.replace(/0+$/, '').replace(/\.$/, '');
  return out === '-0' ? '0' : out;
}

/** A numeral as a JSON number on the wire, exact (`JSON.rawJSON` when a double would change it). */
export function exactNumber(text: string): unknown {
  const n = Number(text);
  return String(n) === text ? n : rawJSON(text);
}

/**
 * sum / count exactly, as the explorer's aggregate writes an average: plain positional form, a quotient that does not
 * terminate rounded half to even at 34 significant digits (more when the sum has more digits).
 */
export function averageText(sum: string, count: bigint): string {
  const negative = sum.startsWith('-');
  const [int, frac = ''] = (negative ? sum.slice(1) : sum).split('.');
  const m = BigInt(`${int}${frac}` || '0');
  const den = count * 10n ** BigInt(frac.length);
  const significant = Math.max(34, `${int}${frac}`.replace(/^0+/, '').length);
  let q = m / den;
  let r = m % den;
  let digits = q.toString();
  let sig = q === 0n ? 0 : digits.length;
  let fracDigits = '';
  while (r !== 0n && sig < significant) {
    r *= 10n;
    const d = r / den;
    r %= den;
    fracDigits += d.toString();
    if (sig > 0 || d !== 0n) sig++;
  }
  if (r !== 0n) {
    // Round half to even on what is left.
    const twice = r * 2n;
    const last = Number((fracDigits || digits).slice(-1));
    if (twice > den || (twice === den && last % 2 === 1)) {
      const all = BigInt(digits + fracDigits) + 1n;
      const s = all.toString().padStart(digits.length + fracDigits.length, '0');
      digits = s.slice(0, s.length - fracDigits.length) || '0';
      fracDigits = s.slice(s.length - fracDigits.length);
    }
  }
  q = BigInt(digits);
  const text = plainDecimal(fracDigits ? `${q}.${fracDigits}` : `${q}`);
  return negative && text !== '0' ? `-${text}` : text;
}
