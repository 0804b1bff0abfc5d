/**
 * An independent reading of an RFC 7464 JSON text sequence for tests: the records a json-seq source indexes, and
 * which of them are malformed. Text before the first RS is one record, malformed for want of its RS (§2.1); RS bytes
 * with only whitespace between them make no record (§2.1); an element that is not one JSON text is malformed (§2.3);
 * a top-level number not followed by whitespace may have been truncated, so it is malformed (§2.4).
 */
export interface SeqRecord {
  index: number;
  /** The parsed value (JSON.parse) of a well-formed record. */
  value?: unknown;
  malformed: boolean;
}

const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

export function readSequence(bytes: Buffer): SeqRecord[] {
  const elements: { body: Buffer; introduced: boolean }[] = [];
  let at = bytes.indexOf(0x1e);
  const head = bytes.subarray(0, at === -1 ? bytes.length : at);
  if (head.some((c) => !isWs(c))) elements.push({ body: head, introduced: false });
  while (at !== -1) {
    const next = bytes.indexOf(0x1e, at + 1);
    const body = bytes.subarray(at + 1, next === -1 ? bytes.length : next);
    if (body.some((c) => !isWs(c))) elements.push({ body, introduced: true });
    at = next;
  }
  return elements.map(({ body, introduced }, index) => {
    const text = body.toString('utf8').trim();
    let value: unknown;
    let malformed = !introduced;
    try {
      value = JSON.parse(text);
    } catch {
      malformed = true;
    }
    if (typeof value === 'number' && !isWs(body[body.length - 1]!)) malformed = true;
    return malformed ? { index, malformed } : { index, value, malformed };
  });
}

/** The three files of the report: text before the first RS, a number directly followed by RS, one ending the file. */
export const SEQ_FILES: Record<string, string> = {
  'mid.json-seq': 'junk{"a":0}\n\x1e{"a":1}\r\n\x1e42\x1e{"a":2}\n\x1e\x1e\n\x1e"str"\x1e-7 \x1e{"a":3}\n\x1e1.5e',
  'pre.json-seq': '{"a":0}\n\x1e{"a":1}\n',
  'tail.json-seq': '\x1e{"a":1}\n\x1e{"a":2}\n\x1e[3]\n\x1e{"a":4}\n\x1e7\n\x1e{"a":5}\n\x1e123',
};
