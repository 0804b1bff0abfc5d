import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { fileIdArg } from '../schemas';
import { fileTable, release } from '../state';

const input = z.object({ file_id: fileIdArg });
const output = z.object({ file_id: z.string(), closed: z.boolean().describe('false when the handle was unknown, expired or already closed') });

export const jsonClose: ToolDefinition<typeof input, typeof output> = {
  name: 'json_close',
  title: 'Close a file_id',
  description:
    'Release a file_id and its cursors. Closing again gives closed: false',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  async handler(args, ctx) {
    const table = fileTable(ctx);
    let file;
    try {
      file = table.get(args.file_id);
    } catch {
      return { file_id: args.file_id, closed: false };
    }
    table.delete(args.file_id);
    // Cursors are invalidated at once; the source closes once the reads running on it have ended.
    // A cancelled caller stops waiting; the cleanup still finishes.
    const done = release(ctx, file);
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      void done.then(resolve, resolve);
    });
    return { file_id: args.file_id, closed: true };
  },
};
