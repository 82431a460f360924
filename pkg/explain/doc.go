// Package explain says why fedctl renders what it renders: for each
// federated object, which members its placement selects and why (the
// clusters list, or each term of the clusterSelector against each member's
// labels, intersected with the FederatedNamespace's placement), how a
// ReplicaSchedulingPreference split its replicas step by step, and what
// each override changed in each member object.
//
// The decisions come from the packages that make them, never from a copy
// of their rules: placement.Explain applies the matcher placement.Select
// uses, planner.ScheduleTrace records the steps of the one planning
// algorithm, and overrides.Explain applies the same json-patch operations
// as overrides.Apply. What this package adds is how render combines them
// (the RSP rewriting placement and /spec/replicas overrides, the
// FederatedNamespace intersection, the template without annotations); a
// test holds the result to render.ForClusters.
//
// Build is pure: the decoded input and the members come in, a Report comes
// out. Text writes a Report for people; the Report's JSON form is the
// schema for tools (see Report).
package explain
