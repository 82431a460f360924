// Package parallel runs independent pieces of work on all CPUs. Callers
// write each result into its own slot and combine the slots in order
// afterwards, so that the outcome never depends on scheduling.
package parallel
