// Package drift tells whether a member object is still what fedctl applied:
// the hash fedctl records on every object it applies, and the rules by which
// apply decides that nothing needs sending and status that nothing drifted.
// It is pure: it compares a render.Target with a live object already read.
package drift
