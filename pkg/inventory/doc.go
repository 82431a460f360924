// Package inventory lists what fedctl manages in the members: "fedctl get
// TYPE [NAME]". It resolves a type name through a member's discovery as
// kubectl does, lists the objects fedctl labelled in every member in
// parallel (the API servers' own Table, or the objects), and merges them
// into one table with a CLUSTER column, or a list with Secret data
// redacted.
//
// It reaches members only through members.Client.
package inventory
