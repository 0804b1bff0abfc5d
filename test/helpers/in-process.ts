import { testTools, type ToolTester, type ToolTesterOptions } from '../../src/plugin-kit/index';

/** What a test of served tools needs of a connection: the real MCP client, and closing it. */
export interface Served {
  client: ToolTester['client'];
  tester: ToolTester;
  close(): Promise<void>;
}

/**
 * The tools `mcpgw serve` offers over a root, served in-process: every built-in plugin loaded (as the CLI loads them),
 * a real MCP client over the SDK's in-memory transport (the plugin kit's tool tester), each message crossing as JSON
 * text. For tests of what the tools answer; stdio framing, the CLI and HTTP keep tests that start a process.
 */
export async function serveInProcess(options: Omit<ToolTesterOptions, 'builtins'> & { root: string }): Promise<Served> {
  const tester = await testTools('@mcpgw/tools-explore', { ...options, builtins: true });
  return { client: tester.client, tester, close: () => tester.close() };
}
