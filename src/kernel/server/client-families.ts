/**
 * Which copy of a tool result a client passes to its model, by the name it sends in `clientInfo.name` (docs/tools.md
 * "Client families": the table with its evidence; amend both together). The protocol era decides only where the name
 * is read: `initialize` (2025 era) or each request's `_meta` envelope (2026-07-28).
 *   structured  the model gets structuredContent (as JSON); the text block is dropped when structuredContent is there
 *   both        the model gets the text block and structuredContent: every answer twice
 *   text        the model gets the text block only (structuredContent only when the text is empty)
 */
export type ClientFamily = 'structured' | 'both' | 'text';

/** The client names known, exactly as sent (compared case-insensitively). A name not here is `text`: the safe default. */
export const CLIENT_FAMILIES: readonly { readonly name: string; readonly client: string; readonly family: ClientFamily }[] = [
  { name: 'claude-code', client: 'Claude Code', family: 'structured' },
  { name: 'github-copilot-developer', client: 'GitHub Copilot CLI', family: 'both' },
  { name: 'opencode', client: 'opencode', family: 'text' },
];

/** Who is calling, as far as the protocol says. */
export interface ClientIdentity {
  readonly name?: string;
  readonly protocolVersion?: string;
}

/** The family of a client name; unknown and absent names are `text`. */
export function clientFamily(client: ClientIdentity | undefined): ClientFamily {
  const name = client?.name?.toLowerCase();
  return CLIENT_FAMILIES.find((f) => f.name === name)?.family ?? 'text';
}

/**
 * The text block a result gets: the profile's `resultText`, and under `auto` (the default) the client's family: a
 * summary for a client that reads both copies, the full JSON for every other (a text-only client needs it; a
 * structured one drops it, so it costs the model nothing).
 */
export function textKind(setting: 'auto' | 'full' | 'summary' | undefined, client: ClientIdentity | undefined): 'full' | 'summary' {
  if (setting === 'full' || setting === 'summary') return setting;
  return clientFamily(client) === 'both' ? 'summary' : 'full';
}

const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

/**
 * The caller of one request: from the request's `_meta` envelope (2026-07-28), else from `initialize` (the server's
 * client version and negotiated protocol version, 2025 era).
 */
export function clientOf(sdkCtx: any, server: { getClientVersion?(): { name?: string } | undefined; getNegotiatedProtocolVersion?(): string | undefined } | undefined): ClientIdentity {
  const envelope = sdkCtx?.mcpReq?.envelope as Record<string, any> | undefined;
  const info = envelope?.[CLIENT_INFO] ?? server?.getClientVersion?.();
  const version = envelope?.[PROTOCOL_VERSION] ?? server?.getNegotiatedProtocolVersion?.();
  return {
    ...(typeof info?.name === 'string' ? { name: info.name } : {}),
    ...(typeof version === 'string' ? { protocolVersion: version } : {}),
  };
}
