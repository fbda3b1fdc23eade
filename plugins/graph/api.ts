/**
 * The graph plugin's public entry, `m1nd/graph` once installed: everything another plugin (built-in
 * or a user's) may use of the code graph — the service, the engine and graph types, and the
 * algorithms verbs build on. Other plugins import from here, never from files under engine/ or
 * algorithms/; test/plugins/import-boundary.test.ts enforces it. Versioned by GRAPH_API_VERSION
 * (also `GraphService.apiVersion`).
 *
 * A plugin declares `requires: ['graph']` and gets the service with `ctx.service<GraphService>('graph')`:
 * - `await graph.requireGraph()` brings the graph up to date and returns the engine (GRAPH_EMPTY
 *   with the ingest call to make when nothing is ingested);
 * - nodes and edges: `engine.graph` is the CodeGraph — `get(id)`, `indexOf(id)`, `node(index)`,
 *   `outgoing(id, relation?)`, `incoming(id, relation?)`, `forEachOut/forEachIn(index, …)`,
 *   `nodeCount`, `edgeCount`; node ids look like `file:src/a.ts`, `function:src/a.ts#name`;
 * - lookups: `graph.node(text)` (an id, a path, `path:line` or an exact name, or a did-you-mean
 *   error), `engine.findNodes(text)`, `engine.symbolAt(path, line)`, `graph.fileSymbols(path)`;
 * - propagation: `propagate(g, seeds, options)` spreads a signal from seed nodes along weighted
 *   relations (IMPACT_PROFILE, CAUSAL_PROFILE, …), `pathTo(p, index)` is the best path back;
 * - paths: `explainPaths(g, from, to, { maxHops, k })` finds the strongest paths between two nodes;
 * - `hopSentence`, `pathLine` and `arrow` render hops for an agent.
 * Algorithms take node indices (`g.indexOf(id)`), not ids, and never block on I/O.
 */
export { confidenceFilter, edgeConfidence } from './algorithms/confidence.ts';
export { groupDependents } from './algorithms/dependents.ts';
export type { DirectDependent, TransitiveDependent } from './algorithms/dependents.ts';
export { arrow, hopSentence, pathLine, pathTokens } from './algorithms/explain.ts';
export { CONTAINS, KIND_CODE, containerOf, degreeOrder, ensureFinal, fileIndexOf, kindCodes, relationCounts, warmFileIndex } from './algorithms/graph-facts.ts';
export { isConstructorOf } from './algorithms/constructors.ts';
export { MaxHeap } from './algorithms/heap.ts';
export { fileRisks, warmFileRisks } from './algorithms/hotspots.ts';
export { explainPaths } from './algorithms/paths.ts';
export type { FoundPath, PathOptions, PathSearch } from './algorithms/paths.ts';
export { pathTo, positionOf, propagate, reservePropagation } from './algorithms/propagation.ts';
export type { Direction, Hop, Propagation, PropagationOptions, Seed } from './algorithms/propagation.ts';
export { baselineReach, simulateRemoval, simulateRemovalPaced } from './algorithms/reachability.ts';
export type { RelationProfile } from './algorithms/relations.ts';
export { CAUSAL_PROFILE, DEPENDENCY_RELATIONS, IMPACT_PROFILE, RELATION_PHRASE, STRUCTURAL_PROFILE, TYPE_USAGE_PROFILE, without } from './algorithms/relations.ts';
export { lexicalSeeds, warmSeedIndex } from './algorithms/seed-index.ts';
export { COMPARABLE_KINDS, featureCount, featuresOf, sharedFeatureNames, signatures, similarPairs, similarPairsPaced, similarTo, structuralSimilarity, warmSignatures } from './algorithms/signatures.ts';
export type { SimilarPair } from './algorithms/signatures.ts';
export { captureGraph, diffDigests, digestGraph, digestGraphPaced, fileDigest } from './algorithms/summary.ts';
export { symbolIndex } from './algorithms/symbol-index.ts';
export type { SymbolIndex } from './algorithms/symbol-index.ts';
export type { FileDigest, GraphCapture, GraphDigest } from './algorithms/summary.ts';
export { temporalProfile, temporalScore } from './algorithms/temporal.ts';
export type { BoostEntry, BoostOverlay } from './boosts.ts';
export { CodeGraphEngine } from './engine/engine.ts';
export type { CodeGraphEngineOptions, FreshnessReport, NodeMatch } from './engine/engine.ts';
export type { EngineMemory } from './engine/engine-memory.ts';
export type { ExtractedBinding, ExtractedCall, FileExtraction, Language } from './engine/extraction.ts';
export { findGitDir, readGitHead } from './engine/git-history.ts';
export { underNames } from './engine/resolve-names.ts';
export type { IngestSummary } from './engine/ingest.ts';
export { DEFAULT_WEIGHTS, RELATIONS, RELATION_CODE, STRUCTURAL_CONTAINS_WEIGHT, fileNodeId, moduleNodeId, symbolNodeId } from './engine/graph.ts';
export type { CodeGraph, GraphEdge, GraphNode, NodeKind, Relation } from './engine/graph.ts';
export { tokenize } from './engine/lexical-index.ts';
export { membersBeforeTheirTypes, queryNames } from './engine/seek-members.ts';
export { pathScope } from './path-scope.ts';
export type { PathScope } from './path-scope.ts';
export { didYouMean, didYouMeanPaced, nearNames, nearNamesPaced } from './engine/near-names.ts';
export type { ExtensionChange, ExtensionReport, ParseExtensionFn, ParseExtensionInput, ParseExtensionSpec } from './engine/parse-extensions.ts';
export { extractMarkdown } from './engine/parsers/markdown.ts';
export { createParser, grammarPath, loadGrammar, treeSitterModule, treeSitterRuntime } from './engine/parsers/tree-sitter.ts';
export type { GrammarName } from './engine/parsers/tree-sitter.ts';
export { dirOf } from './engine/resolve.ts';
export { nodeLoc } from './engine/stats.ts';
export { BACKGROUND_SLICE_MS, SliceClock, backgroundTurnSpent, backgroundYield, runStepsPaced, slicePace, yieldToLoop } from './engine/steps.ts';
export type { FileRow } from './engine/store.ts';
export { GitignoreRules, eachSliced, nativeWatcher, skipped, watcherIgnorePatterns } from './engine/watch-rules.ts';
export { preciseReport } from './engine/ts-program/precise-pass.ts';
export type { FederationViews } from './federated-service.ts';
export { FederatedEngine, NAMESPACE_SEPARATOR, fileIdOf, namespaceOf } from './federated-view.ts';
export { isTestOrMock, MAX_ROUTES_PER_FILE, nextMatchFinder, routeKey, routeMatches, routeMatchesMounted, routesIn, type CutCount } from './http-routes.ts';
export { requestKey, requestsIn } from './http-requests.ts';
export { mountedRoutes, mountPrefixes, mountsIn, type MountPrefixes, type RouteMount } from './http-mounts.ts';
export { indexLines, lineAt } from './engine/parsers/source-lines.ts';
export { spawnEngineWorker } from './engine/engine-worker.ts';
export type { RouteRegistration } from './http-routes.ts';
export type { RouteRequest } from './http-requests.ts';
export type { FederationLink, FederationMember, FederationSpec } from './federated-view.ts';
export { nestedFolderOf, type NestedFolder } from './federated-nesting.ts';
export { PRUNED_SEGMENTS } from './engine/walk.ts';
export { LEARNED_NAMESPACE, agentNamespace } from './learned.ts';
export type { LearnedTeamStore, SharedOps, SharedRow } from './learned.ts';
export { nodeRef, NodeRefSchema } from './node-ref.ts';
export { GRAPH_API_VERSION, asHostError, engineCall } from './service.ts';
export type { GraphService, ParseErrorsView } from './service.ts';
