import type { DependencyContainer } from 'tsyringe';
import type { Container } from './contracts/plugin';
import type { Token } from './contracts/tokens';

/**
 * The plugin API's `Container` over a tsyringe container: resolution by typed token, registration left to the kernel.
 * Plugins see this, never tsyringe's types (no decorators or reflect-metadata in a plugin's typings).
 */
export function containerOf(inner: DependencyContainer): Container & { readonly inner: DependencyContainer } {
  return {
    inner,
    resolve: <T>(token: Token<T>): T => inner.resolve<T>(token),
    isRegistered: (token: Token<unknown>) => inner.isRegistered(token, true),
  };
}
