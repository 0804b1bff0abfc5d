/** Appends a reference token to an RFC 6901 pointer: the plugin API's helper (§3: `~` → `~0`, `/` → `~1`). */
export { appendToken } from 'mcpgw/plugin-kit';
