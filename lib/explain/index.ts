/**
 * `clusterset explain`: what each cluster exports, imports and enforces, and who may reach which
 * exported Service, computed from the checked model's plan without touching any cluster.
 */
export { decide, literalText, type Atom, type Decision, type Literal, type Outcome } from './conditions';
export { formatReport, toJson, JSON_FORMAT, type ExplainFormat } from './format';
export {
  exportEdges,
  exportGraphMermaid,
  graphClusters,
  mermaidId,
  mermaidLabel,
  renderExportGraph,
  type ExportEdge,
  type GraphCluster,
  type GraphEdge,
} from './mermaid';
export { BUILTIN_TIER_PRIORITIES, policiesIn, type AppliedPolicy } from './policies';
export {
  OTHER_NAMESPACE,
  evaluateFlow,
  reachability,
  tableNamespaces,
  type Reachability,
} from './reachability';
export { explain, UnknownClusterError, type ClusterReport, type ExplainReport } from './report';
