/*
 * One Node-API function, `trim()`: glibc's malloc_trim(0), which gives the free pages of every malloc arena back to
 * the system (madvise MADV_DONTNEED), including pages below the top of the heap that free() never returns (glibc
 * "malloc_trim(3)"). Node has no way to call it. Returns true when memory was released; false elsewhere than glibc.
 * Built by scripts/build-native.mjs; used by src/engine/memory.ts when a server goes quiet.
 */
#include <stdlib.h>
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if defined(__GLIBC__)
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_get_boolean(env, released != 0, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}
