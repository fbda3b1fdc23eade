/**
 * The public surface of the host for plugin authors and embedders. An explicit barrel: adding a
 * name here is a decision to make it public.
 */
export { definePlugin } from './plugin.ts';
export type { PluginDefinition, PluginContext, PluginSource } from './plugin.ts';
export { defineVerb, effectOf, STAGES, BUILTIN_TIERS } from './verb.ts';
export type { VerbDefinition, VerbRecord, VerbHandler, LoadedHandler, Effect, Stage, ProofTargets } from './verb.ts';
export { isToolContent, toolContent } from './call-context.ts';
export type { CallContext, ClientLogLevel, InvokeResult, ToolContent, ToolContentBlock } from './call-context.ts';
export type { ResourceDefinition, ResourceListing, ResourceContent, ReadResult, ResourceRequestContext, PromptDefinition, PromptArgument, PromptMessage, Completer } from './resources.ts';
export type { CallState, CallRefusal, CallOutcome, Truncation } from './call-state.ts';
export type { HostHooks, HookName, BootInfo, DoctrineInfo, Workflow } from './hooks.ts';
export { GATE_STAGES } from './hooks.ts';
export { BUILTIN_GATE_TAPS } from './builtin-taps.ts';
export { ErrorCodes, M1ndError, toM1ndError } from './errors.ts';
export type { ErrorCode } from './errors.ts';
export { countTokens, countValueTokens, packTextsToTokenBudget, packToTokenBudget, packToTokenBudgetPaced, tokenizerLoaded, tokenizerReady } from './tokens.ts';
export { countTokensAsync } from './tokens-async.ts';
export { writeFileAtomic, stageFile, stageFileAsync, commitStaged, discardStaged, syncDir, writeDurable, writeDurableAsync, TEMP_MARKER } from './atomic-file.ts';
export type { StagedFile } from './atomic-file.ts';
export type { BudgetReport, TextBudgetReport } from './tokens.ts';
export { AgentId, StringEnum } from './schema.ts';
export { isPathParameter, pathParameters, MAX_PATH_CHARS, MAX_TEXT_CHARS, MAX_LIST_ITEMS } from './input-bounds.ts';
export type { PathParameter } from './input-bounds.ts';
/** TypeBox's builder, re-exported so out-of-tree plugins need no TypeBox install of their own. */
export { Type } from '@sinclair/typebox';
export type { Static, TObject, TSchema } from '@sinclair/typebox';
export type { CatalogView, Surface, HelpEntry, QuarantineRecord, HostStatus } from './catalog.ts';
export type { TierTable, TierCuration, TierChoice } from './tiers.ts';
export type { HostSettings } from './settings.ts';
export type { SessionStore, AgentRecord } from './session.ts';
export type { Logger } from './log.ts';
export { Host } from './host.ts';
export type { GenerationInput, HostOptions, ReloadReport } from './host.ts';
export { startHost, prepareGeneration, listBundles, BUILTIN_PLUGIN_DIR, BUILTIN_BUNDLE_DIR } from './boot.ts';
export type { BootOptions, PreparedGeneration } from './boot.ts';
export { defineConfig, defineBundle } from './config.ts';
export type { M1ndConfig, BundleDefinition } from './config.ts';
export { CORE_VERSION, NODE_ENGINE, SERVER_NAME } from './version.ts';
export { youngGeneration } from './cli-heap.ts';
export type { YoungGeneration } from './cli-heap.ts';
export { describeSchema, minimalArguments, minimalCall, mustPass } from './validation.ts';
export { connectInMemory } from './testing.ts';
export { serveHttp, DEFAULT_HTTP_PORT } from './http-entry.ts';
export type { HttpOptions, HttpServerHandle } from './http.ts';
export { ROUTE_CALL_PREFIX, httpError } from './http-routes.ts';
export type { HttpCaller, HttpMethod, HttpRouteDefinition, HttpRouteRequest, HttpRouteResponse } from './http-routes.ts';
export type { ConnectInMemoryOptions, InMemoryConnection } from './testing.ts';
