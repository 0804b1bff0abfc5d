import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { closeWhenUnused, fileTable } from '../files';
import { handleArg } from '../schemas';

const input = z.object({ handle: handleArg });
const output = z.object({ closed: z.boolean() });

export const closeFile: ToolDefinition<typeof input, typeof output> = {
  name: 'close_file',
  title: 'Close a file',
  description:
    'Release a handle from open_file. An unknown or closed handle gives closed: false',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler(args, ctx) {
    const table = fileTable(ctx);
    let file;
    try {
      file = table.get(args.handle);
    } catch {
      return { closed: false };
    }
    table.delete(args.handle);
    // Gone for every caller at once; the file itself closes when the calls reading it have ended.
    closeWhenUnused(file);
    return { closed: true };
  },
};
