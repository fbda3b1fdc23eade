/**
 * The state plugin's public entry: the `state` service's types (the store interface other plugins
 * persist through). Consume it with `requires: ['state']` and `ctx.service<StateService>('state')`.
 */
export { repositoryIdentity, normaliseRemote } from './identity.ts';
export { redactUrl } from './postgres-connection.ts';
export type { StateChange, StateOps, StateRow, StateService, StateStore, StoreStatus, WriteCondition } from './types.ts';
