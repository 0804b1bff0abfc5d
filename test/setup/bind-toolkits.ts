/**
 * Tests that import a built-in plugin's modules directly (not through the loader) stand in for its `register`: each
 * plugin's `src/toolkit.ts` is bound to the engine's toolkit, as `register` binds it to `context.toolkit`.
 * (jest.config.js `setupFiles`: runs in each test file's own module registry.)
 */
import { engineToolkit } from '../../src/engine/toolkit';
import { bindToolkit as jsonseq } from '../../plugins/format-jsonseq/src/toolkit';
import { bindToolkit as explore } from '../../plugins/tools-explore/src/toolkit';
import { bindToolkit as reader } from '../../plugins/tools-reader/src/toolkit';
import { bindToolkit as sessions } from '../../plugins/tools-sessions/src/toolkit';

for (const bind of [jsonseq, explore, reader, sessions]) bind(engineToolkit);
