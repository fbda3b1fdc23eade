/**
 * The graph plugin's public entry: everything another plugin (built-in or a user's) may use of the
 * code graph — the service, the engine and graph types, and the algorithms verbs build on. Other
 * plugins import from here (or `m1nd/graph` once installed), never from files under engine/ or
 * algorithms/; test/plugins/import-boundary.test.ts enforces it.
 */
export { confidenceFilter, edgeConfidence } from './algorithms/confidence.ts';
export { groupDependents } from './algorithms/dependents.ts';
export type { DirectDependent, TransitiveDependent } from './algorithms/dependents.ts';
export { arrow, hopSentence, pathLine, pathTokens } from './algorithms/explain.ts';
export { CONTAINS, KIND_CODE, containerOf, degreeOrder, ensureFinal, fileIndexOf, kindCodes, relationCounts } from './algorithms/graph-facts.ts';
export { MaxHeap } from './algorithms/heap.ts';
export { fileRisks } from './algorithms/hotspots.ts';
export { explainPaths } from './algorithms/paths.ts';
export { pathTo, positionOf, propagate } from './algorithms/propagation.ts';
export type { Direction, Propagation, PropagationOptions, Seed } from './algorithms/propagation.ts';
export { simulateRemoval } from './algorithms/reachability.ts';
export { CAUSAL_PROFILE, DEPENDENCY_RELATIONS, IMPACT_PROFILE, RELATION_PHRASE, STRUCTURAL_PROFILE, TYPE_USAGE_PROFILE, without } from './algorithms/relations.ts';
export { lexicalSeeds } from './algorithms/seed-index.ts';
export { COMPARABLE_KINDS, sharedFeatureNames, signatures, similarPairs, similarTo, structuralSimilarity } from './algorithms/signatures.ts';
export type { SimilarPair } from './algorithms/signatures.ts';
export { diffDigests, digestGraph, fileDigest } from './algorithms/summary.ts';
export type { FileDigest, GraphDigest } from './algorithms/summary.ts';
export { temporalProfile, temporalScore } from './algorithms/temporal.ts';
export type { BoostEntry } from './boosts.ts';
export type { CodeGraphEngine } from './engine/engine.ts';
export type { FileExtraction, Language } from './engine/extraction.ts';
export { RELATIONS, RELATION_CODE, symbolNodeId } from './engine/graph.ts';
export type { CodeGraph, GraphEdge, GraphNode, NodeKind, Relation } from './engine/graph.ts';
export { tokenize } from './engine/lexical-index.ts';
export { nearNames } from './engine/node-lookup.ts';
export { createParser, loadGrammar } from './engine/parsers/tree-sitter.ts';
export type { GrammarName } from './engine/parsers/tree-sitter.ts';
export { dirOf } from './engine/resolve.ts';
export { nodeLoc } from './engine/stats.ts';
export type { FileRow } from './engine/store.ts';
export { preciseReport } from './engine/ts-program/precise-pass.ts';
export { LEARNED_NAMESPACE, agentNamespace } from './learned.ts';
export { asHostError, engineCall } from './service.ts';
export type { GraphService } from './service.ts';
